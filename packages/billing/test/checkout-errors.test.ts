import { AuthError } from "@svc/auth-core";
import { type AuthContext, adminAuth, anonymousAuth, createAuthContext } from "@svc/schema";
import { testDatabases } from "@svc/tooling/databases";
import { refusedURL } from "@svc/tooling/http-server";
import { describe, expect, it } from "vitest";
import {
  expectBillingError,
  loggedMessage,
  messageOf,
  PUBLIC_URL,
  rejectionOf,
  sessionAuth,
  TRUSTED_ORIGIN,
  useBillingFixture,
} from "./fixture.js";

// Every error a checkout can answer, and where success and cancel
// addresses may point: nothing reaches the processor before the request is
// known to be valid, and its failures surface as PAYMENT_FAILED with its
// own words kept out of the message.

const PRICES = { priceIds: ["price_pro"] };
const USER = "a".repeat(40);

const notRealSessions: [string, AuthContext][] = [
  ["an anonymous caller", anonymousAuth],
  ["the admin token", adminAuth],
  [
    "a guest session",
    createAuthContext({ userId: USER, via: "guest", isGuest: true, sessionId: "g1" }),
  ],
  ["an API key", createAuthContext({ userId: USER, via: "api-key" })],
  ["a JWT", createAuthContext({ userId: USER, via: "jwt", roles: ["admin"] })],
];

describe.each(testDatabases())("checkout errors on $name", (database) => {
  const fixture = useBillingFixture(database);

  it.each(notRealSessions)("refuses %s with AUTH_REQUIRED", async (_label, auth) => {
    const f = fixture();
    await expectBillingError(f.billing.checkout(auth, PRICES, PUBLIC_URL), "AUTH_REQUIRED");
    expect(f.fake.requests).toHaveLength(0);
  });

  it("answers PAYMENT_NOT_CONFIGURED without an API key, for signed-in callers only", async () => {
    const f = fixture();
    const user = await f.insertUser({ email: "ada@example.com" });
    const billing = f.billingWith({ apiKey: undefined });
    expect(billing.paymentsEnabled).toBe(false);
    await expectBillingError(
      billing.checkout(sessionAuth(user.id), PRICES, PUBLIC_URL),
      "PAYMENT_NOT_CONFIGURED",
    );
    await expectBillingError(billing.checkout(anonymousAuth, PRICES, PUBLIC_URL), "AUTH_REQUIRED");
    expect(f.billingWith({ apiKey: "" }).paymentsEnabled).toBe(false);
  });

  it.each<[string, unknown]>([
    ["no body", undefined],
    ["a body that is not an object", ["price_pro"]],
    ["no priceIds", { mode: "subscription" }],
    ["an empty list", { priceIds: [] }],
    ["a string", { priceIds: "price_pro" }],
    ["a number among them", { priceIds: ["price_pro", 7] }],
    ["an empty string", { priceIds: [""] }],
    ["null", { priceIds: null }],
    ["an overlong id", { priceIds: ["p".repeat(256)] }],
  ])("answers MISSING_PRICES for %s", async (_label, body) => {
    const f = fixture();
    const user = await f.insertUser({ email: "ada@example.com" });
    await expectBillingError(
      f.billing.checkout(sessionAuth(user.id), body, PUBLIC_URL),
      "MISSING_PRICES",
    );
    expect(f.fake.requests).toHaveLength(0);
  });

  it("answers TOO_MANY_PRICES past 20 and INVALID_MODE for other modes", async () => {
    const f = fixture();
    const auth = sessionAuth((await f.insertUser({ email: "ada@example.com" })).id);
    const many = Array.from({ length: 21 }, (_, index) => `price_${index}`);
    await expectBillingError(
      f.billing.checkout(auth, { priceIds: many }, PUBLIC_URL),
      "TOO_MANY_PRICES",
    );
    for (const mode of ["setup", "SUBSCRIPTION", 1, ""]) {
      await expectBillingError(
        f.billing.checkout(auth, { ...PRICES, mode }, PUBLIC_URL),
        "INVALID_MODE",
      );
    }
    expect(f.fake.requests).toHaveLength(0);
    await f.billing.checkout(auth, { priceIds: many.slice(0, 20), mode: null }, PUBLIC_URL);
    expect(f.fake.requestsTo("/v1/checkout/sessions")[0]?.form.get("mode")).toBe("subscription");
  });

  it("with allowed prices, refuses any other price before asking the processor", async () => {
    const f = fixture();
    const limited = f.billingWith({ allowedPrices: ["price_pro", "price_team"] });
    const auth = sessionAuth((await f.insertUser({ email: "ada@example.com" })).id);
    await expectBillingError(
      limited.checkout(auth, { priceIds: ["price_pro", "price_internal_free"] }, PUBLIC_URL),
      "PRICE_NOT_ALLOWED",
    );
    expect(f.fake.requests).toHaveLength(0);
    await limited.checkout(auth, { priceIds: ["price_team"] }, PUBLIC_URL);
    expect(f.fake.requestsTo("/v1/checkout/sessions")).toHaveLength(1);
  });

  it.each<[string, { successUrl?: unknown; cancelUrl?: unknown }, string, string]>([
    ["defaults", {}, `${PUBLIC_URL}/billing/success`, `${PUBLIC_URL}/billing/cancel`],
    [
      "relative paths",
      { successUrl: "/thanks?plan=pro", cancelUrl: "/pricing#top" },
      `${PUBLIC_URL}/thanks?plan=pro`,
      `${PUBLIC_URL}/pricing#top`,
    ],
    [
      "the processor's session placeholder",
      { successUrl: "/done?session_id={CHECKOUT_SESSION_ID}" },
      `${PUBLIC_URL}/done?session_id={CHECKOUT_SESSION_ID}`,
      `${PUBLIC_URL}/billing/cancel`,
    ],
    [
      "absolute addresses on a trusted origin",
      { successUrl: `${TRUSTED_ORIGIN}/ok`, cancelUrl: `${TRUSTED_ORIGIN}/no` },
      `${TRUSTED_ORIGIN}/ok`,
      `${TRUSTED_ORIGIN}/no`,
    ],
    [
      "the public URL's own origin",
      { successUrl: `${PUBLIC_URL}/x` },
      `${PUBLIC_URL}/x`,
      `${PUBLIC_URL}/billing/cancel`,
    ],
  ])("accepts %s", async (_label, urls, success, cancel) => {
    const f = fixture();
    const auth = sessionAuth((await f.insertUser({ email: "ada@example.com" })).id);
    await f.billing.checkout(auth, { ...PRICES, ...urls }, "http://ignored.example");
    const [call] = f.fake.requestsTo("/v1/checkout/sessions");
    expect([call?.form.get("success_url"), call?.form.get("cancel_url")]).toEqual([
      success,
      cancel,
    ]);
  });

  it("resolves relative paths against the request's address without a public URL", async () => {
    const f = fixture();
    const auth = sessionAuth((await f.insertUser({ email: "ada@example.com" })).id);
    const billing = f.billingWith({ publicURL: undefined });
    await billing.checkout(auth, { ...PRICES, cancelUrl: "/back" }, "http://localhost:4321");
    const [call] = f.fake.requestsTo("/v1/checkout/sessions");
    expect(call?.form.get("success_url")).toBe("http://localhost:4321/billing/success");
    expect(call?.form.get("cancel_url")).toBe("http://localhost:4321/back");
  });

  it.each<[string, Record<string, unknown>]>([
    ["an untrusted absolute success URL", { successUrl: "https://evil.example/phish" }],
    ["an untrusted absolute cancel URL", { cancelUrl: "https://evil.example/" }],
    ["a protocol-relative URL", { successUrl: "//evil.example/x" }],
    ["a backslash path", { successUrl: "/\\evil.example" }],
    ["a javascript: URL", { cancelUrl: "javascript:alert(1)" }],
    ["a data: URL", { successUrl: "data:text/html,<script>x</script>" }],
    ["a tab hidden in a path", { successUrl: "/\t/evil.example" }],
    ["a trusted host over another scheme", { successUrl: "ftp://shop.example/" }],
    ["a number", { successUrl: 42 }],
    ["an empty string", { cancelUrl: "" }],
  ])("refuses %s with INVALID_REDIRECT before calling the processor", async (_label, urls) => {
    const f = fixture();
    const auth = sessionAuth((await f.insertUser({ email: "ada@example.com" })).id);
    const error = await rejectionOf(f.billing.checkout(auth, { ...PRICES, ...urls }, PUBLIC_URL));
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ code: "INVALID_REDIRECT", status: 400, expose: true });
    expect(f.fake.requests).toHaveLength(0);
  });

  it("answers PAYMENT_FAILED when customer creation is refused, logging the processor's words", async () => {
    const f = fixture();
    f.fake.override = (request) =>
      request.path === "/v1/customers"
        ? {
            status: 400,
            body: {
              error: { type: "invalid_request_error", message: "Invalid email address: ada" },
            },
          }
        : undefined;
    const user = await f.insertUser({ email: "ada@example.com" });
    const error = await expectBillingError(
      f.billing.checkout(sessionAuth(user.id), PRICES, PUBLIC_URL),
      "PAYMENT_FAILED",
    );
    expect(error.message).not.toContain("Invalid email");
    expect(messageOf(error.cause)).toContain("Invalid email address: ada");
    expect(f.logged).toHaveLength(1);
    expect(loggedMessage(f, 0)).toContain("Invalid email address: ada");
    expect((await f.user(user.id))?.paymentCustomerId).toBeNull();
    expect(f.fake.requestsTo("/v1/checkout/sessions")).toHaveLength(0);
  });

  it("keeps the customer when only the session creation fails, and reuses it next time", async () => {
    const f = fixture();
    f.fake.override = (request) =>
      request.path === "/v1/checkout/sessions"
        ? { status: 500, body: { error: { type: "api_error", message: "Something broke" } } }
        : undefined;
    const user = await f.insertUser({ email: "ada@example.com" });
    const auth = sessionAuth(user.id);
    await expectBillingError(f.billing.checkout(auth, PRICES, PUBLIC_URL), "PAYMENT_FAILED");
    expect((await f.user(user.id))?.paymentCustomerId).toBe("cus_fake1");
    f.fake.override = undefined;
    await f.billing.checkout(auth, PRICES, PUBLIC_URL);
    expect(f.fake.customers).toHaveLength(1);
  });

  it.each<[string, "hang" | "not-json" | { status: number; body: unknown }]>([
    ["a processor that never answers", "hang"],
    ["an answer that is not JSON", "not-json"],
    ["a success without the session fields", { status: 200, body: { id: "cs_1" } }],
    ["an error without an error object", { status: 503, body: { oops: true } }],
  ])("answers PAYMENT_FAILED for %s", async (_label, answer) => {
    const f = fixture();
    const billing = f.billingWith({ timeoutMs: 300 });
    f.fake.override = (request) => (request.path === "/v1/checkout/sessions" ? answer : undefined);
    const user = await f.insertUser({ email: "ada@example.com" });
    await expectBillingError(
      billing.checkout(sessionAuth(user.id), PRICES, PUBLIC_URL),
      "PAYMENT_FAILED",
    );
  });

  it("answers PAYMENT_FAILED for a refused key and for an unreachable processor", async () => {
    const f = fixture();
    const user = await f.insertUser({ email: "ada@example.com" });
    const auth = sessionAuth(user.id);
    const wrongKey = f.billingWith({ apiKey: "sk_test_wrong" });
    const error = await expectBillingError(
      wrongKey.checkout(auth, PRICES, PUBLIC_URL),
      "PAYMENT_FAILED",
    );
    expect(error.message).not.toContain("sk_test_wrong");
    const unreachable = f.billingWith({ apiBase: await refusedURL() });
    await expectBillingError(unreachable.checkout(auth, PRICES, PUBLIC_URL), "PAYMENT_FAILED");
    expect((await f.user(user.id))?.paymentCustomerId).toBeNull();
  });
});
