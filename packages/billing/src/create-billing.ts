import type { CacheStats } from "@svc/auth-core";
import type { AuthContext } from "@svc/schema";
import type { EntityTables, PackageMigrations, Store, StoreDialect } from "@svc/store";
import type { Kysely } from "kysely";
import { type CheckoutResult, parseCheckoutRequest, requireBillingCaller } from "./checkout.js";
import { normalizeApiBase } from "./config.js";
import { customerOfUser, ensureCustomer } from "./customers.js";
import { EntitlementCache } from "./entitlement-cache.js";
import { BillingError } from "./errors.js";
import { KeyedMutex } from "./keyed-mutex.js";
import { createStripeClient, type PaymentProcessor } from "./stripe-client.js";
import {
  type BillingSubscription,
  DEFAULT_ACTIVE_STATUSES,
  type Entitlements,
  readCustomerSubscription,
  readEntitlements,
} from "./subscriptions.js";
import { type BillingTables, billingMigrations } from "./tables.js";
import { checkBillingUser } from "./user-check.js";
import {
  type BillingEventHook,
  type ReplayResult,
  receiveWebhook,
  replayRecordedEvent,
  type WebhookDeps,
} from "./webhook.js";

/** Options of `createBilling`. */
export interface BillingOptions {
  /** The application's store: User rows are read and written through it. */
  readonly store: Store;
  /** The store's kysely instance, for billing's own tables. */
  readonly db: Kysely<EntityTables>;
  /** The store's dialect. */
  readonly dialect: StoreDialect;
  /** `SVC_PAYMENT_API_KEY`; unset: checkout (and the webhook) answer 501 `PAYMENT_NOT_CONFIGURED`. */
  readonly apiKey?: string | undefined;
  /** `SVC_PAYMENT_WEBHOOK_SECRET`; unset: the webhook answers 501 `WEBHOOK_NOT_CONFIGURED`. */
  readonly webhookSecret?: string | undefined;
  /** `SVC_PAYMENT_API_BASE`; default `https://api.stripe.com`. */
  readonly apiBase?: string | undefined;
  /** `SVC_PAYMENT_PRICES`: the only price ids a checkout may sell; default any. */
  readonly allowedPrices?: readonly string[] | undefined;
  /** `SVC_PUBLIC_URL`: relative redirect paths resolve against it; default the `baseURL` of each call. */
  readonly publicURL?: string | undefined;
  /** Origins an absolute success or cancel address may be on (the manifest's `auth.trustedOrigins`). */
  readonly trustedOrigins: readonly string[];
  /** The clock in unix milliseconds (signature tolerance, ledger times). Default `Date.now`. */
  readonly now?: () => number;
  /** The `fetch` processor calls go through. Default the global one. */
  readonly fetch?: typeof fetch;
  /** How long one processor call may take. Default 10 seconds. */
  readonly timeoutMs?: number;
  /** Runs for every newly recorded webhook event; see `BillingEventHook`. None by default. */
  readonly onEvent?: BillingEventHook;
  /**
   * The subscription statuses that make a user `active`. Default
   * `["active", "trialing"]`; add `"past_due"` to keep access while the
   * processor retries a failed payment.
   */
  readonly activeStatuses?: readonly string[];
  /**
   * How long `entitlementIds` keeps a user's ids (milliseconds). This
   * process's webhook drops them at once; other servers drop them when
   * `forgetEntitlements` is called (see `onEntitlementsChanged`), and
   * within this time at the latest. Default 10 seconds; 0 reads every time.
   */
  readonly entitlementCacheMs?: number;
  /**
   * Called after a webhook event that changed a user's subscription
   * committed: tell the other servers sharing the database, whose caches
   * must call `forgetEntitlements(userId)` (the server announces it through
   * auth-core's journal: `auth.announceCallerChange`). A failure is logged
   * through `logError`; the webhook still succeeds. Default: nothing.
   */
  readonly onEntitlementsChanged?: (userId: string) => Promise<void> | void;
  /** Receives processor failures and hook failures. Default: `console.error`. */
  readonly logError?: (message: string, error: unknown) => void;
}

/** Billing for one application; see `createBilling`. */
export interface Billing {
  /** Billing's table plans, for `store.migrate({ packages: [...billing.migrations] })`. */
  readonly migrations: readonly PackageMigrations[];
  /** Whether checkout is on (`SVC_PAYMENT_API_KEY` set). */
  readonly paymentsEnabled: boolean;
  /** Whether the webhook is on (the API key and `SVC_PAYMENT_WEBHOOK_SECRET` set). */
  readonly webhooksEnabled: boolean;
  /**
   * Starts a hosted checkout for the caller (a real session only) and
   * returns where to send the browser. `body` is the request body as sent;
   * `baseURL` is the request's own address, used for relative redirect
   * paths when no `publicURL` was given.
   */
  checkout(auth: AuthContext, body: unknown, baseURL: string): Promise<CheckoutResult>;
  /** Verifies and records one webhook delivery: the exact body bytes and the `Stripe-Signature` header. */
  handleWebhook(raw: Uint8Array, signature: string | undefined): Promise<{ received: true }>;
  /** Runs the `onEvent` hook again for a recorded event (404 `EVENT_NOT_FOUND` when unknown). */
  replayEvent(eventId: string): Promise<ReplayResult>;
  /** The user's plan state from the recorded subscription events. */
  entitlementsFor(userId: string): Promise<Entitlements>;
  /** A customer's current subscription (an entitling one first), or null. */
  subscriptionFor(customerId: string): Promise<BillingSubscription | null>;
  /**
   * The price ids of the user's entitling subscriptions, sorted and
   * deduplicated, from a short-lived cache: what a server puts in
   * `AuthContext.entitlements` for policies and functions.
   */
  entitlementIds(userId: string): Promise<readonly string[]>;
  /** Drops this process's cached entitlement ids of `userId` (another server changed them). */
  forgetEntitlements(userId: string): void;
  /**
   * Counters of the entitlement cache behind `entitlementIds`, for metrics
   * (no I/O): hits, misses, invalidations (this server's webhook clears it,
   * another server's change drops one user), evictions, size.
   *
   * @example
   * const { hits, misses } = billing.entitlementCacheStats();
   */
  entitlementCacheStats(): CacheStats;
  /** Empties billing's tables and cache (a dev-mode test reset). */
  reset(): Promise<void>;
}

function logToConsole(message: string, error: unknown): void {
  console.error(`[@svc/billing] ${message}`, error);
}

/**
 * Creates billing over an application's store: hosted checkout at a
 * Stripe-compatible processor, the customer mapping on
 * `User.paymentCustomerId`, the signed webhook with its event ledger, and
 * entitlements. With an API key it checks the manifest at once
 * (`checkBillingUser`), throwing a `ConfigError` for a `User` that cannot
 * hold the customer id.
 *
 * @example
 * const billing = createBilling({ store, db, dialect, trustedOrigins, ...parseBillingConfig(process.env) });
 * await store.migrate({ packages: [...auth.migrations, ...billing.migrations] });
 */
export function createBilling(options: BillingOptions): Billing {
  if (options.dialect !== options.store.dialect) {
    throw new TypeError("createBilling: dialect differs from the store's.");
  }
  const apiKey = options.apiKey === "" ? undefined : options.apiKey;
  const webhookSecret = options.webhookSecret === "" ? undefined : options.webhookSecret;
  if (apiKey !== undefined) checkBillingUser(options.store.manifest);
  const now = options.now ?? Date.now;
  const logError = options.logError ?? logToConsole;
  const activeStatuses = options.activeStatuses ?? DEFAULT_ACTIVE_STATUSES;
  const db = options.db as unknown as Kysely<BillingTables>;
  const processor: PaymentProcessor | undefined =
    apiKey === undefined
      ? undefined
      : createStripeClient({
          apiKey,
          apiBase: normalizeApiBase(options.apiBase),
          ...(options.fetch !== undefined && { fetch: options.fetch }),
          ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
        });
  const mutex = new KeyedMutex();
  const cache = new EntitlementCache({ ttlMs: options.entitlementCacheMs ?? 10_000, now });
  const webhookDeps: WebhookDeps = {
    store: options.store,
    db,
    apiKey,
    webhookSecret,
    now,
    onEvent: options.onEvent,
    logError,
    async onSubscriptionChange(userId) {
      cache.clear();
      if (userId === null || options.onEntitlementsChanged === undefined) return;
      try {
        await options.onEntitlementsChanged(userId);
      } catch (error) {
        logError(`telling other servers of user ${userId}'s entitlements failed`, error);
      }
    },
  };
  const entitlementsFor = async (userId: string): Promise<Entitlements> =>
    readEntitlements(db, {
      userId,
      customerId: await customerOfUser(options.db, userId),
      activeStatuses,
    });

  return {
    migrations: [billingMigrations()],
    paymentsEnabled: processor !== undefined,
    webhooksEnabled: processor !== undefined && webhookSecret !== undefined,
    async checkout(auth, body, baseURL) {
      const userId = requireBillingCaller(auth);
      if (processor === undefined) throw new BillingError("PAYMENT_NOT_CONFIGURED");
      const request = parseCheckoutRequest(body, {
        baseURL: options.publicURL ?? baseURL,
        trustedOrigins: options.trustedOrigins,
        allowedPrices: options.allowedPrices,
      });
      try {
        const customerId = await ensureCustomer(
          { store: options.store, db: options.db, processor, mutex, now },
          userId,
        );
        return await processor.createCheckoutSession({ ...request, customerId, userId });
      } catch (error) {
        if (error instanceof BillingError && error.code === "PAYMENT_FAILED") {
          logError(`checkout for user ${userId} failed at the processor`, error.cause);
        }
        throw error;
      }
    },
    handleWebhook: (raw, signature) => receiveWebhook(webhookDeps, raw, signature),
    replayEvent: (eventId) => replayRecordedEvent(webhookDeps, eventId),
    entitlementsFor,
    subscriptionFor: (customerId) => readCustomerSubscription(db, customerId, activeStatuses),
    async reset() {
      await db.deleteFrom("svc_billing_subscriptions").execute();
      await db.deleteFrom("svc_billing_events").execute();
      await db.deleteFrom("svc_billing_customers").execute();
      cache.clear();
    },
    forgetEntitlements: (userId) => cache.forget(userId),
    entitlementCacheStats: () => cache.stats(),
    entitlementIds: (userId) =>
      cache.get(userId, async () => {
        const { subscriptions } = await entitlementsFor(userId);
        const ids = subscriptions
          .filter((subscription) => activeStatuses.includes(subscription.status))
          .flatMap((subscription) => subscription.priceIds);
        return [...new Set(ids)].sort();
      }),
  };
}
