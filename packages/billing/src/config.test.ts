import { ConfigError, parseManifest } from "@svc/schema";
import { thrownBy } from "@svc/tooling/thrown";
import { describe, expect, it } from "vitest";
import { DEFAULT_PAYMENT_API_BASE, parseBillingConfig } from "./config.js";
import { checkBillingUser } from "./user-check.js";

function configError(run: () => unknown): ConfigError {
  return thrownBy(ConfigError, run);
}

describe("parseBillingConfig", () => {
  it("leaves key and secret unset when absent or empty, with Stripe's address", () => {
    expect(parseBillingConfig({})).toEqual({
      apiKey: undefined,
      webhookSecret: undefined,
      apiBase: DEFAULT_PAYMENT_API_BASE,
      allowedPrices: undefined,
    });
    expect(
      parseBillingConfig({
        SVC_PAYMENT_API_KEY: "",
        SVC_PAYMENT_WEBHOOK_SECRET: "",
        SVC_PAYMENT_API_BASE: "",
      }),
    ).toEqual({
      apiKey: undefined,
      webhookSecret: undefined,
      apiBase: "https://api.stripe.com",
      allowedPrices: undefined,
    });
  });

  it("reads the key, the secret and a local API base", () => {
    expect(
      parseBillingConfig({
        SVC_PAYMENT_API_KEY: "sk_test_123",
        SVC_PAYMENT_WEBHOOK_SECRET: "whsec_abc",
        SVC_PAYMENT_API_BASE: "http://127.0.0.1:12111/",
      }),
    ).toEqual({
      apiKey: "sk_test_123",
      webhookSecret: "whsec_abc",
      apiBase: "http://127.0.0.1:12111",
      allowedPrices: undefined,
    });
    expect(
      parseBillingConfig({ SVC_PAYMENT_API_BASE: "https://proxy.example/stripe//" }).apiBase,
    ).toBe("https://proxy.example/stripe");
  });

  it("reads the allowed prices, and names SVC_PAYMENT_PRICES for a malformed one", () => {
    expect(
      parseBillingConfig({ SVC_PAYMENT_PRICES: " price_pro, price_team  price_x " }).allowedPrices,
    ).toEqual(["price_pro", "price_team", "price_x"]);
    expect(parseBillingConfig({ SVC_PAYMENT_PRICES: "  " }).allowedPrices).toBeUndefined();
    expect(
      configError(() => parseBillingConfig({ SVC_PAYMENT_PRICES: "price_pro,p;drop" })).variable,
    ).toBe("SVC_PAYMENT_PRICES");
  });

  it.each([
    "api.stripe.com",
    "/v1",
    "ftp://api.stripe.com",
    "javascript:alert(1)",
    "https://user:pass@api.stripe.com",
    "https://api.stripe.com/?x=1",
    "https://api.stripe.com/#frag",
  ])("refuses SVC_PAYMENT_API_BASE=%s, naming the variable", (value) => {
    const error = configError(() => parseBillingConfig({ SVC_PAYMENT_API_BASE: value }));
    expect(error.variable).toBe("SVC_PAYMENT_API_BASE");
  });

  it.each(["SVC_PAYMENT_API_KEY", "SVC_PAYMENT_WEBHOOK_SECRET"])(
    "refuses whitespace in %s without printing the value",
    (variable) => {
      const error = configError(() => parseBillingConfig({ [variable]: "sk_live_secret\n" }));
      expect(error.variable).toBe(variable);
      expect(error.message).not.toContain("sk_live_secret");
    },
  );
});

function manifestWith(fields: unknown[] | null) {
  return parseManifest({
    manifest_version: 1,
    name: "m",
    version: "1",
    entities:
      fields === null
        ? [{ name: "Todo", fields: [{ name: "title", type: "string" }] }]
        : [{ name: "User", fields: [{ name: "email", type: "string", unique: true }, ...fields] }],
  });
}

describe("checkBillingUser", () => {
  it("accepts an optional string paymentCustomerId", () => {
    expect(() =>
      checkBillingUser(
        manifestWith([{ name: "paymentCustomerId", type: "string", optional: true }]),
      ),
    ).not.toThrow();
  });

  it.each<[string, unknown[] | null]>([
    ["no User entity", null],
    ["no paymentCustomerId", []],
    ["a required paymentCustomerId", [{ name: "paymentCustomerId", type: "string" }]],
    [
      "a non-string paymentCustomerId",
      [{ name: "paymentCustomerId", type: "int", optional: true }],
    ],
  ])("refuses %s, naming User.paymentCustomerId", (_label, fields) => {
    const error = configError(() => checkBillingUser(manifestWith(fields)));
    expect(error.variable).toBe("User.paymentCustomerId");
  });
});
