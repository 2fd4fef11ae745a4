import { join } from "node:path";
import { matchTarget, testDatabases } from "@svc/tooling/databases";
import Stripe from "stripe";
import { beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config.js";
import { startServer } from "../src/start-server.js";
import { type AppPlace, appServerPerTest, startAppServer } from "./app-server.js";
import {
  type AuthTestServer,
  errorOf,
  type HttpStub,
  post,
  readJSON,
  registerPassword,
  request,
  type SignInBody,
  startAuthServer,
  startHttpStub,
} from "./auth-fixtures.js";
import { ADMIN_TOKEN, adminRequest, databaseEnv, tempDir } from "./fixtures.js";
import { entity, signInManifest, testManifest, writeTestApp } from "./test-app.js";

// Billing through the composed server, configured only by the environment,
// against a local stand-in for the processor's API, on every database:
// checkout with the customer made once, the signed webhook with its ledger,
// the application's billing hook (a function file), entitlements, the 501s
// of an unconfigured server and the boot check of the User entity.

const SECRET = "whsec_server_test_secret";
const signer = new Stripe("sk_test_signing_helper_only");

/** An app with a User that can hold a customer id and a billing hook that logs events. */
function writeApp(dir: string): string {
  const manifest = signInManifest("billing-app", {
    userFields: { paymentCustomerId: { type: "string", optional: true } },
    entities: [
      entity("Report", { title: "string" }),
      entity("BillingLog", { eventId: "string", type: "string", replay: "bool" }),
    ],
    policies: [
      {
        name: "pro reports",
        entity: "Report",
        allowRead: "auth.hasEntitlement('price_pro')",
        allowInsert: "false",
        allowUpdate: "false",
        allowDelete: "false",
      },
    ],
  });
  return writeTestApp(dir, manifest, {
    logBilling: `export default {
  type: "hook",
  on: { billing: { events: ["customer.subscription.updated"] } },
  handler: async (ctx, { event, replay }) => {
    await ctx.db.insert("BillingLog", { eventId: event.id, type: event.type, replay });
  },
};
`,
    myPlan: `export default { type: "query", handler: (ctx) => ({ entitlements: ctx.auth.entitlements }) };\n`,
  });
}

function subscriptionEvent(id: string, customer: string, status: string, created: number): string {
  return JSON.stringify({
    id,
    object: "event",
    created,
    type: "customer.subscription.updated",
    data: {
      object: {
        id: "sub_1",
        object: "subscription",
        customer,
        status,
        current_period_end: created + 30 * 86_400,
        items: { object: "list", data: [{ id: "si_1", price: { id: "price_pro" }, quantity: 1 }] },
      },
    },
  });
}

describe.each(testDatabases())("billing through the server on $name", (database) => {
  let processor: HttpStub;
  let server: AuthTestServer;
  let customers = 0;

  // Cleanups run last first: the processor's stand-in outlives the server.
  beforeEach(async () => {
    customers = 0;
    processor = await startHttpStub((req) => {
      if (req.url === "/v1/customers") {
        customers += 1;
        return { status: 200, body: { id: `cus_${customers}`, object: "customer" } };
      }
      if (req.url === "/v1/checkout/sessions") {
        return { status: 200, body: { id: "cs_1", url: "https://pay.example/cs_1" } };
      }
      return { status: 404, body: { error: { message: "no such route" } } };
    });
    return () => processor[Symbol.asyncDispose]();
  });
  const billingEnv = ({ dir, target }: AppPlace): Record<string, string> => ({
    SVC_PUBLIC_URL: "https://svc.example",
    SVC_RATE_LIMIT: "off",
    SVC_PAYMENT_API_KEY: "sk_test_server",
    SVC_PAYMENT_WEBHOOK_SECRET: SECRET,
    SVC_PAYMENT_API_BASE: processor.url,
    // On SQLite sessions live in memory unless given a file: a second
    // server on the same files shares them only through one.
    ...databaseEnv(target, { sessionsFile: join(dir, "sessions.db") }),
  });
  const app = appServerPerTest(database, { writeApp, env: billingEnv });

  beforeEach(() => {
    server = app.server;
  });

  /** Registers `email` and checks it out for `price_pro`: the stand-in makes its customer. */
  async function checkedOut(email: string): Promise<SignInBody> {
    const session = await registerPassword(server, email);
    await post(
      server,
      "/api/billing/checkout",
      { priceIds: ["price_pro"] },
      { token: session.token },
    );
    return session;
  }

  function webhook(
    payload: string,
    options: { secret?: string; headers?: Record<string, string> } = {},
  ) {
    const header = signer.webhooks.generateTestHeaderString({
      payload,
      secret: options.secret ?? SECRET,
      timestamp: Math.floor(server.clock.now() / 1000),
    });
    return fetch(`${server.url}/api/billing/webhook`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "stripe-signature": header,
        ...options.headers,
      },
      body: payload,
    });
  }

  it("checks out a signed-in user, creating the processor customer once", async () => {
    const session = await registerPassword(server, "ada@example.com");
    const body = { priceIds: ["price_pro"], successUrl: "/thanks" };
    const first = await readJSON(
      post(server, "/api/billing/checkout", body, { token: session.token }),
    );
    expect(first).toMatchObject({
      status: 200,
      body: { id: "cs_1", url: "https://pay.example/cs_1" },
    });
    const again = await readJSON(
      post(server, "/api/billing/checkout", body, { token: session.token }),
    );
    expect(again.status).toBe(200);
    expect(customers).toBe(1);
    const user = await server.store.systemReader().get("User", session.user_id);
    expect(user?.paymentCustomerId).toBe("cus_1");
    const sessionRequest = processor.requests.find((req) => req.url === "/v1/checkout/sessions");
    expect(new URLSearchParams(sessionRequest?.body).get("success_url")).toBe(
      "https://svc.example/thanks",
    );
  });

  it("refuses guests, missing prices and untrusted return addresses with the spec's codes", async () => {
    const guest = await readJSON<{ token: string }>(post(server, "/api/auth/guest"));
    expect(
      await errorOf(
        post(server, "/api/billing/checkout", { priceIds: ["p"] }, { token: guest.body.token }),
      ),
    ).toMatchObject({ status: 401, code: "AUTH_REQUIRED" });
    const session = await registerPassword(server, "bob@example.com");
    expect(
      await errorOf(
        post(server, "/api/billing/checkout", { priceIds: [] }, { token: session.token }),
      ),
    ).toMatchObject({ status: 400, code: "MISSING_PRICES" });
    expect(
      await errorOf(
        post(
          server,
          "/api/billing/checkout",
          { priceIds: ["p"], successUrl: "https://evil.example/" },
          { token: session.token },
        ),
      ),
    ).toMatchObject({ status: 400, code: "INVALID_REDIRECT" });
    expect(customers).toBe(0);
  });

  it("records a signed event once, runs the app's hook once, and grants the entitlement", async () => {
    const session = await checkedOut("ada@example.com");
    const created = Math.floor(server.clock.now() / 1000);
    const payload = subscriptionEvent("evt_1", "cus_1", "active", created);
    // The processor's POST carries no cookie or Origin; a stale cookie must not matter either.
    const delivered = await webhook(payload, { headers: { cookie: "svc_session=svc_stale" } });
    expect(delivered.status).toBe(200);
    expect(await delivered.json()).toEqual({ received: true });
    expect((await webhook(payload)).status).toBe(200);
    const logs = await server.store.systemReader().query("BillingLog", {});
    expect(logs.rows).toEqual([
      expect.objectContaining({
        eventId: "evt_1",
        type: "customer.subscription.updated",
        replay: false,
      }),
    ]);
    const entitlements = await readJSON(
      request(server, "GET", "/api/billing/entitlements", { token: session.token }),
    );
    expect(entitlements.body).toMatchObject({
      active: true,
      subscriptions: [{ id: "sub_1", status: "active", priceIds: ["price_pro"] }],
    });
    const replayed = await adminRequest(server, "POST", "/api/admin/billing/events/evt_1/replay");
    expect(replayed.status).toBe(200);
    const afterReplay = await server.store.systemReader().query("BillingLog", {});
    expect(afterReplay.rows.map((row) => row.replay).sort()).toEqual([false, true]);
  });

  it("gates policies and functions on the entitlement a subscription event grants", async () => {
    const session = await checkedOut("ada@example.com");
    await adminRequest(server, "POST", "/api/entities/Report", { title: "Q3" });
    const reports = () =>
      readJSON<unknown[]>(request(server, "GET", "/api/entities/Report", { token: session.token }));
    const plan = () => readJSON(post(server, "/api/fn/myPlan", {}, { token: session.token }));
    expect((await reports()).body).toEqual([]);
    expect((await plan()).body).toEqual({ entitlements: [] });
    const created = Math.floor(server.clock.now() / 1000);
    expect((await webhook(subscriptionEvent("evt_pro", "cus_1", "active", created))).status).toBe(
      200,
    );
    expect((await reports()).body).toEqual([expect.objectContaining({ title: "Q3" })]);
    expect((await plan()).body).toEqual({ entitlements: ["price_pro"] });
    // The cookie carries the same caller.
    const viaCookie = await readJSON<unknown[]>(
      request(server, "GET", "/api/entities/Report", { cookie: session.token }),
    );
    expect(viaCookie.body).toHaveLength(1);
    expect(
      (await webhook(subscriptionEvent("evt_gone", "cus_1", "canceled", created + 1))).status,
    ).toBe(200);
    expect((await reports()).body).toEqual([]);
  });

  it("drops another server's cached entitlements when a subscription changes", async () => {
    // Issue 22: the second server's cache would keep the old ids for its
    // whole lifetime here (the clock stands still), so only the journal
    // announcement can make it read them again.
    await using other = await startAppServer(app, billingEnv(app), server.clock);
    const session = await checkedOut("ada@example.com");
    const planOn = (target: AuthTestServer) =>
      readJSON<{ entitlements: string[] }>(
        post(target, "/api/fn/myPlan", {}, { token: session.token }),
      );
    expect((await planOn(other)).body).toEqual({ entitlements: [] });
    const created = Math.floor(server.clock.now() / 1000);
    expect((await webhook(subscriptionEvent("evt_pro", "cus_1", "active", created))).status).toBe(
      200,
    );
    const started = performance.now();
    while ((await planOn(other)).body.entitlements.length === 0) {
      expect(performance.now() - started).toBeLessThan(2000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // One journal poll: 50 ms on Postgres, 250 ms on SQLite.
    expect(performance.now() - started).toBeLessThan(
      matchTarget(app.target, { sqlite: () => 600, postgres: () => 200 }),
    );
    expect((await planOn(other)).body).toEqual({ entitlements: ["price_pro"] });
  });

  it("refuses a bad signature with 400 WEBHOOK_INVALID and records nothing", async () => {
    const payload = subscriptionEvent("evt_bad", "cus_9", "active", 1);
    const response = await webhook(payload, { secret: "whsec_someone_else" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { code: "WEBHOOK_INVALID", message: expect.any(String) },
    });
    expect((await server.store.systemReader().query("BillingLog", {})).rows).toEqual([]);
  });
});

describe("billing configuration", () => {
  it("answers 501 on an unconfigured server", async () => {
    await using server = await startAuthServer({ SVC_DB_PATH: ":memory:", SVC_RATE_LIMIT: "off" });
    const session = await registerPassword(server, "ada@example.com");
    expect(
      await errorOf(
        post(server, "/api/billing/checkout", { priceIds: ["p"] }, { token: session.token }),
      ),
    ).toMatchObject({ status: 501, code: "PAYMENT_NOT_CONFIGURED" });
    const webhook = await fetch(`${server.url}/api/billing/webhook`, {
      method: "POST",
      body: "{}",
    });
    expect(webhook.status).toBe(501);
  });

  it("stops the boot when a configured processor has no User.paymentCustomerId to write", async () => {
    using dir = tempDir();
    const manifest = testManifest("no-customer-field", {
      entities: [entity("User", { email: { type: "string", unique: true } })],
    });
    const config = parseConfig({
      SVC_PORT: "0",
      SVC_HOST: "127.0.0.1",
      SVC_MANIFEST: writeTestApp(dir.path, manifest),
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      SVC_DB_PATH: ":memory:",
      SVC_PAYMENT_API_KEY: "sk_test_x",
    });
    await expect(startServer(config)).rejects.toThrow("User.paymentCustomerId");
  });
});
