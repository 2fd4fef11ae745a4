import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAuth } from "@svc/auth-core";
import { authenticate, sessionResolver } from "@svc/auth-core/express";
import { parseManifest } from "@svc/schema";
import { errorHandler } from "@svc/schema/http";
import { createStore } from "@svc/store";
import { openSqlite } from "@svc/store/sqlite";
import { closeServer, listenOnLoopback } from "@svc/tooling/http-server";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createBillingRouter, isBillingWebhook } from "../src/express.js";
import { createBilling, parseBillingConfig } from "../src/index.js";
import { startFakeProcessor } from "./fake-processor.js";
import { signatureFor, subscriptionEvent, WEBHOOK_SECRET } from "./fixture.js";

// The README's example, run as written, with a real auth-core session:
// register, check out against the fake processor, receive the
// subscription webhook, read the entitlements.

const manifest = parseManifest({
  manifest_version: 1,
  name: "readme",
  version: "1",
  auth: { trustedOrigins: ["https://app.example"] },
  entities: [
    {
      name: "User",
      fields: [
        { name: "email", type: "string", unique: true },
        { name: "paymentCustomerId", type: "string", optional: true },
      ],
    },
  ],
});

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups.length = 0;
});

describe("the README example", () => {
  it("runs as written: checkout with a real session, the webhook, entitlements", async () => {
    const fake = await startFakeProcessor("sk_test_readme");
    cleanups.push(() => fake.close());
    const dir = mkdtempSync(join(tmpdir(), "svc-billing-readme-"));
    const previous = process.cwd();
    const env = { ...process.env };
    process.chdir(dir);
    cleanups.push(() => {
      process.chdir(previous);
      process.env = env;
      rmSync(dir, { recursive: true, force: true });
    });
    Object.assign(process.env, {
      SVC_AUTH_SECRET: "s".repeat(32),
      SVC_PAYMENT_API_KEY: "sk_test_readme",
      SVC_PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SVC_PAYMENT_API_BASE: fake.url,
      SVC_PUBLIC_URL: "https://app.example",
    });
    const paid: unknown[] = [];
    const console = { log: (...args: unknown[]) => paid.push(args) };

    // --- the README example, verbatim ---
    const { db, dialect } = openSqlite("data.db");
    const store = createStore({ db, dialect, manifest }); // User has paymentCustomerId
    const auth = createAuth({
      store,
      database: { db, dialect },
      secret: process.env.SVC_AUTH_SECRET ?? "",
    });
    const billing = createBilling({
      store,
      db,
      dialect,
      ...parseBillingConfig(process.env),
      publicURL: process.env.SVC_PUBLIC_URL,
      trustedOrigins: manifest.auth.trustedOrigins,
      onEvent: async (event) => {
        if (event.type === "invoice.paid") console.log("paid", event.data.object.id);
      },
    });
    await store.migrate({ packages: [...auth.migrations, ...billing.migrations] });

    const app = express();
    const resolveCaller = authenticate({ resolvers: [sessionResolver(auth)] });
    app.use((req, res, next) => (isBillingWebhook(req) ? next() : resolveCaller(req, res, next)));
    app.use(createBillingRouter(billing)); // before any JSON body parser
    app.use(express.json());
    app.use(errorHandler());
    // --- end ---

    cleanups.push(async () => {
      await auth.close();
      await store.close();
    });
    const server = createServer(app);
    const base = await listenOnLoopback(server);
    cleanups.push(() => closeServer(server));

    const { token, user_id } = await auth.registerPassword(
      { email: "ada@example.com", password: "correct horse battery" },
      {},
    );
    const checkout = await fetch(`${base}/api/billing/checkout`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ priceIds: ["price_pro"], successUrl: "https://app.example/welcome" }),
    });
    expect(await checkout.json()).toEqual({
      id: "cs_test_fake1",
      url: "https://checkout.stripe.test/c/pay/cs_test_fake1",
    });
    const session = fake.requestsTo("/v1/checkout/sessions")[0];
    expect(session?.form.get("success_url")).toBe("https://app.example/welcome");
    expect(session?.form.get("cancel_url")).toBe("https://app.example/billing/cancel");
    expect(session?.form.get("client_reference_id")).toBe(user_id);

    const now = Math.floor(Date.now() / 1000);
    for (const payload of [
      subscriptionEvent({ id: "evt_sub", created: now, customer: "cus_fake1", status: "active" }),
      JSON.stringify({
        id: "evt_paid",
        type: "invoice.paid",
        created: now,
        data: { object: { id: "in_1" } },
      }),
    ]) {
      const delivered = await fetch(`${base}/api/billing/webhook`, {
        method: "POST",
        headers: { "Stripe-Signature": signatureFor(payload, { timestamp: now }) },
        body: payload,
      });
      expect(await delivered.json()).toEqual({ received: true });
    }
    expect(paid).toEqual([["paid", "in_1"]]);

    const entitlements = await fetch(`${base}/api/billing/entitlements`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(await entitlements.json()).toMatchObject({
      active: true,
      subscriptions: [{ id: "sub_1" }],
    });
    const anonymous = await fetch(`${base}/api/billing/checkout`, { method: "POST", body: "{}" });
    expect(anonymous.status).toBe(401);
  });
});
