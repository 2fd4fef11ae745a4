import { type AuthContext, adminAuth, createAuthContext, parseManifest } from "@svc/schema";
import { createStore, dialectFor, type Row, type Store, type StoreDatabase } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import { openTestDatabase, type TestDatabase } from "@svc/tooling/databases";
import { databaseForTest, fixturePerTest } from "@svc/tooling/per-test";
import { codedRejectionOf } from "@svc/tooling/thrown";
import type { Kysely } from "kysely";
import Stripe from "stripe";
import { expect } from "vitest";
import {
  type Billing,
  BillingError,
  type BillingErrorCode,
  type BillingEvent,
  type BillingOptions,
  type BillingTables,
  billingErrorCodes,
  createBilling,
} from "../src/index.js";
import { type FakeProcessor, startFakeProcessor } from "./fake-processor.js";

export const API_KEY = "sk_test_svc_billing_fixture";
export const WEBHOOK_SECRET = "whsec_svc_billing_fixture_secret";
export const PUBLIC_URL = "https://app.example";
export const TRUSTED_ORIGIN = "https://shop.example";
/** A whole second: signature timestamps are the clock in seconds. */
export const START = Date.UTC(2026, 10, 25, 10, 0, 0);

/** The spec's User: `email` (optional here, to test users without one) and `paymentCustomerId`. */
export const billingManifest = parseManifest({
  manifest_version: 1,
  name: "billing-test",
  version: "1",
  entities: [
    {
      name: "User",
      fields: [
        { name: "email", type: "string", unique: true, optional: true },
        { name: "emailVerified", type: "string", optional: true },
        { name: "paymentCustomerId", type: "string", optional: true },
      ],
    },
  ],
});

const stripe = new Stripe("sk_test_signing_helper_only");

/** A `Stripe-Signature` header from the official SDK's test helper. */
export function signatureFor(
  payload: string,
  options: { secret?: string; timestamp: number },
): string {
  return stripe.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? WEBHOOK_SECRET,
    timestamp: options.timestamp,
  });
}

/** A subscription event body as the processor sends it. */
export function subscriptionEvent(input: {
  id: string;
  type?: string;
  created: number;
  subscription?: string;
  customer: string;
  status: string;
  priceIds?: readonly string[];
  periodEnd?: number;
}): string {
  const subscription = input.subscription ?? "sub_1";
  return JSON.stringify({
    id: input.id,
    object: "event",
    api_version: "2024-06-20",
    created: input.created,
    livemode: false,
    type: input.type ?? "customer.subscription.updated",
    data: {
      object: {
        id: subscription,
        object: "subscription",
        customer: input.customer,
        status: input.status,
        current_period_end: input.periodEnd ?? input.created + 30 * 86_400,
        items: {
          object: "list",
          data: (input.priceIds ?? ["price_pro"]).map((price, index) => ({
            id: `si_${subscription}_${index}`,
            object: "subscription_item",
            price: { id: price, object: "price" },
            quantity: 1,
          })),
        },
      },
    },
  });
}

/** An open connection with a store and a billing instance over it (one "server"). */
export interface BillingServer {
  readonly store: Store;
  readonly billing: Billing;
  readonly tables: Kysely<BillingTables>;
}

export interface BillingFixture extends BillingServer {
  readonly name: TestDatabase["name"];
  readonly fake: FakeProcessor;
  /** Unix ms; advance it instead of sleeping. */
  clock: number;
  /** What `onEvent` received, in order. */
  readonly hookCalls: { event: BillingEvent; replay: boolean }[];
  /** What `logError` received. */
  readonly logged: { message: string; error: unknown }[];
  /** While set, `onEvent` throws it. */
  hookFailure: Error | undefined;
  /** Another connection and billing instance over the same database (a second server). */
  connect(overrides?: Partial<BillingOptions>): Promise<BillingServer>;
  /**
   * A second server: on Postgres its own connection (`connect`); on SQLite,
   * which svc runs in one process, another billing instance (with its own
   * in-process lock) over the same connection, since two better-sqlite3
   * connections in one process block each other's event loop on a write.
   */
  secondServer(): Promise<BillingServer>;
  /** A billing instance over this fixture's store with other options. */
  billingWith(overrides: Partial<BillingOptions>): Billing;
  insertUser(fields: Record<string, unknown>): Promise<Row>;
  user(id: string): Promise<Row | null>;
  /** Signs and delivers a body through `billing.handleWebhook` at the fixture's clock. */
  deliver(payload: string, billing?: Billing): Promise<{ received: true }>;
  /** The clock in unix seconds. */
  seconds(): number;
}

/** A real (non-guest) session's caller. */
export function sessionAuth(userId: string): AuthContext {
  return createAuthContext({ userId, via: "session", sessionId: `session-${userId}` });
}

export function useBillingFixture(
  database: TestDatabase,
  options: Partial<BillingOptions> = {},
): () => BillingFixture {
  return fixturePerTest("billing", async (defer) => {
    const { open } = await databaseForTest(database, defer, (target) =>
      openTestDatabase(target, { openSqlite, openPostgres }, { max: 6 }),
    );
    const fake = await startFakeProcessor(API_KEY);
    defer(() => fake.close());
    const fixture = {} as BillingFixture;
    const optionsFor = (store: Store, connection: StoreDatabase): BillingOptions => ({
      store,
      db: connection.db,
      dialect: connection.dialect,
      apiKey: API_KEY,
      webhookSecret: WEBHOOK_SECRET,
      apiBase: fake.url,
      publicURL: PUBLIC_URL,
      trustedOrigins: [TRUSTED_ORIGIN],
      now: () => fixture.clock,
      logError: (message, error) => fixture.logged.push({ message, error }),
      onEvent: (event, context) => {
        fixture.hookCalls.push({ event, replay: context.replay });
        if (fixture.hookFailure !== undefined) throw fixture.hookFailure;
      },
      ...options,
    });
    const serveOn = async (
      connection: StoreDatabase,
      overrides: Partial<BillingOptions> = {},
    ): Promise<BillingServer> => {
      const store = createStore({
        db: connection.db,
        dialect: connection.dialect,
        manifest: billingManifest,
      });
      const billing = createBilling({ ...optionsFor(store, connection), ...overrides });
      await store.migrate({ packages: billing.migrations });
      return { store, billing, tables: connection.db as unknown as Kysely<BillingTables> };
    };
    const serve = (overrides: Partial<BillingOptions> = {}) => serveOn(open(), overrides);
    const primaryConnection = open();
    const primary = await serveOn(primaryConnection);
    Object.assign(fixture, {
      ...primary,
      name: database.name,
      fake,
      clock: START,
      hookCalls: [],
      logged: [],
      hookFailure: undefined,
      connect: serve,
      secondServer: async () =>
        dialectFor(primaryConnection.dialect).concurrentWriters
          ? serve()
          : { ...primary, billing: createBilling(optionsFor(primary.store, primaryConnection)) },
      billingWith: (overrides: Partial<BillingOptions>) =>
        createBilling({ ...optionsFor(primary.store, primaryConnection), ...overrides }),
      insertUser: (fields: Record<string, unknown>) =>
        primary.store.transaction(adminAuth, (tx) => tx.insert("User", fields)),
      user: (id: string) => primary.store.systemReader().get("User", id),
      deliver: (payload: string, billing = primary.billing) =>
        billing.handleWebhook(
          Buffer.from(payload),
          signatureFor(payload, { timestamp: Math.floor(fixture.clock / 1000) }),
        ),
      seconds: () => Math.floor(fixture.clock / 1000),
    });
    return fixture;
  });
}

export { rejectionOf } from "@svc/tooling/thrown";

/** Expects a `BillingError` with `code` and the table's status, and returns it. */
export async function expectBillingError(
  promise: Promise<unknown>,
  code: BillingErrorCode,
): Promise<BillingError> {
  const billingError = await codedRejectionOf(BillingError, promise, {
    code,
    status: billingErrorCodes[code].status,
  });
  expect(billingError.message).toBe(billingErrorCodes[code].message);
  return billingError;
}

/** The message of an error, or "" for anything else. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : "";
}

/** The message of the error `logError` received at `index`. */
export function loggedMessage(fixture: BillingFixture, index: number): string {
  return messageOf(fixture.logged[index]?.error);
}
