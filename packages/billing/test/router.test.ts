import {
  adminTokenResolver,
  authErrorHandler,
  authenticate,
  type BearerResolver,
} from "@svc/auth-core/express";
import { createAuthContext } from "@svc/schema";
import { testDatabases } from "@svc/tooling/databases";
import { closeFakeServers, serveOnLoopback } from "@svc/tooling/http-server";
import express, { type Express } from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createBillingRouter, isBillingWebhook } from "../src/express.js";
import type { Billing } from "../src/index.js";
import {
  loggedMessage,
  sessionAuth,
  signatureFor,
  subscriptionEvent,
  useBillingFixture,
} from "./fixture.js";

// The routes through express and real HTTP: the caller from auth-core's
// `authenticate`, the webhook's raw body, and the envelope for every error.

const ADMIN_TOKEN = "admin-".padEnd(64, "x");

/** `sess-<id>` is a real session, `key-<id>` an API key, anything else unknown. */
const testTokens: BearerResolver = (token) => {
  if (token.startsWith("sess-")) return sessionAuth(token.slice(5));
  if (token.startsWith("key-"))
    return createAuthContext({ userId: token.slice(4), via: "api-key" });
  return null;
};

afterEach(closeFakeServers);

/** An app as a server would compose it: caller resolution skipped on the webhook, then the router. */
function appFor(billing: Billing, errors: unknown[], before?: express.RequestHandler): Express {
  const app = express();
  if (before !== undefined) app.use(before);
  const resolve = authenticate({ resolvers: [adminTokenResolver(ADMIN_TOKEN), testTokens] });
  app.use((req, res, next) => (isBillingWebhook(req) ? next() : resolve(req, res, next)));
  app.use(createBillingRouter(billing, { bodyLimitBytes: 8 * 1024 }));
  app.use(express.json());
  app.use(authErrorHandler((error) => errors.push(error)));
  return app;
}

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: "POST", body, headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function codeOf(body: Record<string, unknown>): unknown {
  return (body.error as { code?: unknown } | undefined)?.code;
}

describe("isBillingWebhook", () => {
  it.each([
    ["/api/billing/webhook", true],
    ["/api/billing/webhook/", true],
    ["/api/billing/checkout", false],
    ["/api/billing/webhooks", false],
    ["/API/billing/webhook", false],
  ])("%s → %s", (path, expected) => {
    expect(isBillingWebhook({ path })).toBe(expected);
  });
});

describe.each(testDatabases())("billing routes on $name", (database) => {
  const fixture = useBillingFixture(database);

  async function boot(billing?: Billing) {
    const f = fixture();
    const errors: unknown[] = [];
    const url = await serveOnLoopback(appFor(billing ?? f.billing, errors));
    return { f, url, errors };
  }

  it("starts a checkout for a session, resolving paths against the request's address", async () => {
    const { f, url } = await boot(fixture().billingWith({ publicURL: undefined }));
    const user = await f.insertUser({ email: "ada@example.com" });
    const response = await post(
      `${url}/api/billing/checkout`,
      JSON.stringify({ priceIds: ["price_pro"], successUrl: "/paid" }),
      {
        Authorization: `Bearer sess-${user.id}`,
        "Content-Type": "application/json",
      },
    );
    expect(response).toEqual({
      status: 200,
      body: { id: "cs_test_fake1", url: "https://checkout.stripe.test/c/pay/cs_test_fake1" },
    });
    expect(f.fake.requestsTo("/v1/checkout/sessions")[0]?.form.get("success_url")).toBe(
      `${url}/paid`,
    );
  });

  it.each<[string, Record<string, string>, string, number, string]>([
    ["an anonymous caller", {}, '{"priceIds":["p"]}', 401, "AUTH_REQUIRED"],
    ["an API key", { Authorization: "Bearer key-u1" }, '{"priceIds":["p"]}', 401, "AUTH_REQUIRED"],
    [
      "a body that is not JSON",
      { Authorization: "Bearer sess-u1" },
      "{priceIds",
      400,
      "INVALID_JSON",
    ],
    ["no prices", { Authorization: "Bearer sess-u1" }, "{}", 400, "MISSING_PRICES"],
    [
      "an untrusted success URL",
      { Authorization: "Bearer sess-u1" },
      '{"priceIds":["p"],"successUrl":"https://evil.example"}',
      400,
      "INVALID_REDIRECT",
    ],
  ])("answers checkout from %s with the envelope", async (_label, headers, body, status, code) => {
    const { url } = await boot();
    const response = await post(`${url}/api/billing/checkout`, body, headers);
    expect(response.status).toBe(status);
    expect(codeOf(response.body)).toBe(code);
    expect(Object.keys(response.body)).toEqual(["error"]);
  });

  it("answers 502 PAYMENT_FAILED without the processor's words", async () => {
    const { f, url, errors } = await boot();
    f.fake.override = () => ({
      status: 402,
      body: { error: { type: "card_error", message: "Your card was declined" } },
    });
    const user = await f.insertUser({ email: "ada@example.com" });
    const response = await post(`${url}/api/billing/checkout`, '{"priceIds":["p"]}', {
      Authorization: `Bearer sess-${user.id}`,
    });
    expect(response.status).toBe(502);
    expect(codeOf(response.body)).toBe("PAYMENT_FAILED");
    expect(JSON.stringify(response.body)).not.toContain("declined");
    expect(errors).toEqual([]);
    expect(loggedMessage(f, 0)).toContain("Your card was declined");
  });

  it("verifies the webhook over the exact bytes, whatever the content type and Authorization", async () => {
    const { f, url } = await boot();
    // Pretty-printed, non-ASCII: a re-serialised body would not verify.
    const payload = `${JSON.stringify(JSON.parse(subscriptionEvent({ id: "evt_ü", created: f.seconds(), customer: "cus_1", status: "active" })), null, 2)}\n`;
    const response = await post(`${url}/api/billing/webhook`, payload, {
      "Content-Type": "application/json; charset=utf-8",
      "Stripe-Signature": signatureFor(payload, { timestamp: f.seconds() }),
      Authorization: "Bearer not-a-token-anyone-knows",
    });
    expect(response).toEqual({ status: 200, body: { received: true } });
    const row = await f.tables.selectFrom("svc_billing_events").selectAll().executeTakeFirst();
    expect(row?.payload).toBe(payload);
  });

  it.each<[string, (payload: string, now: number) => Record<string, string>, number, string]>([
    [
      "a tampered body",
      (p, now) => ({ "Stripe-Signature": signatureFor(`${p} `, { timestamp: now }) }),
      400,
      "WEBHOOK_INVALID",
    ],
    ["no signature header", () => ({}), 400, "WEBHOOK_INVALID"],
    [
      "a stale signature",
      (p, now) => ({ "Stripe-Signature": signatureFor(p, { timestamp: now - 3600 }) }),
      400,
      "WEBHOOK_INVALID",
    ],
  ])("answers the webhook with %s", async (_label, headers, status, code) => {
    const { f, url } = await boot();
    const payload = subscriptionEvent({
      id: "evt_1",
      created: f.seconds(),
      customer: "cus_1",
      status: "active",
    });
    const response = await post(
      `${url}/api/billing/webhook`,
      payload,
      headers(payload, f.seconds()),
    );
    expect([response.status, codeOf(response.body)]).toEqual([status, code]);
    expect(await f.tables.selectFrom("svc_billing_events").selectAll().execute()).toEqual([]);
  });

  it("refuses an oversized webhook body with 413", async () => {
    const { f, url } = await boot();
    const payload = JSON.stringify({
      id: "evt_big",
      type: "x",
      created: f.seconds(),
      data: { object: { pad: "x".repeat(9000) } },
    });
    const response = await post(`${url}/api/billing/webhook`, payload, {
      "Stripe-Signature": signatureFor(payload, { timestamp: f.seconds() }),
    });
    expect([response.status, codeOf(response.body)]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
  });

  it("answers 501 when the webhook secret is unset", async () => {
    const { url } = await boot(fixture().billingWith({ webhookSecret: undefined }));
    const response = await post(`${url}/api/billing/webhook`, "{}", {
      "Stripe-Signature": "t=1,v1=00",
    });
    expect([response.status, codeOf(response.body)]).toEqual([501, "WEBHOOK_NOT_CONFIGURED"]);
  });

  it("reports a JSON parser mounted before the router as a wiring mistake", async () => {
    const f = fixture();
    const errors: unknown[] = [];
    const url = await serveOnLoopback(appFor(f.billing, errors, express.json()));
    const payload = subscriptionEvent({
      id: "evt_1",
      created: f.seconds(),
      customer: "cus_1",
      status: "active",
    });
    const response = await post(`${url}/api/billing/webhook`, payload, {
      "Content-Type": "application/json",
      "Stripe-Signature": signatureFor(payload, { timestamp: f.seconds() }),
    });
    expect([response.status, codeOf(response.body)]).toEqual([500, "INTERNAL_ERROR"]);
    expect(String(errors[0])).toContain("mount it before any JSON body parser");
  });

  it("serves the caller's own entitlements to a session only", async () => {
    const { f, url } = await boot();
    const user = await f.insertUser({ email: "ada@example.com" });
    await f.billing.checkout(sessionAuth(user.id), { priceIds: ["price_pro"] }, url);
    const customer = (await f.user(user.id))?.paymentCustomerId as string;
    await f.deliver(
      subscriptionEvent({
        id: "evt_1",
        created: f.seconds(),
        customer,
        status: "active",
        periodEnd: 2_000_000_000,
      }),
    );
    const mine = await fetch(`${url}/api/billing/entitlements`, {
      headers: { Authorization: `Bearer sess-${user.id}` },
    });
    expect(await mine.json()).toEqual({
      active: true,
      subscriptions: [
        { id: "sub_1", status: "active", priceIds: ["price_pro"], currentPeriodEnd: 2_000_000_000 },
      ],
    });
    const anonymous = await fetch(`${url}/api/billing/entitlements`);
    expect(anonymous.status).toBe(401);
    const byKey = await fetch(`${url}/api/billing/entitlements`, {
      headers: { Authorization: `Bearer key-${user.id}` },
    });
    expect(byKey.status).toBe(401);
  });

  it("lets only the admin token replay an event", async () => {
    const { f, url } = await boot();
    await f.deliver(
      JSON.stringify({
        id: "evt_1",
        type: "invoice.paid",
        created: f.seconds(),
        data: { object: {} },
      }),
    );
    const replay = (id: string, headers: Record<string, string>) =>
      post(`${url}/api/admin/billing/events/${id}/replay`, "", headers);
    const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    expect(await replay("evt_1", admin)).toEqual({
      status: 200,
      body: { id: "evt_1", type: "invoice.paid", processedAt: f.clock, hookError: null },
    });
    expect(f.hookCalls.map((call) => call.replay)).toEqual([false, true]);
    const missing = await replay("evt_nope", admin);
    expect([missing.status, codeOf(missing.body)]).toEqual([404, "EVENT_NOT_FOUND"]);
    const session = await replay("evt_1", { Authorization: "Bearer sess-u1" });
    expect([session.status, codeOf(session.body)]).toEqual([403, "ADMIN_REQUIRED"]);
    const anonymous = await replay("evt_1", {});
    expect([anonymous.status, codeOf(anonymous.body)]).toEqual([401, "AUTH_REQUIRED"]);
    expect(f.hookCalls).toHaveLength(2);
  });
});
