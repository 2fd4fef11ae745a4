import { ConfigError } from "@svc/schema";

/** Stripe's API address, used when `SVC_PAYMENT_API_BASE` is unset. */
export const DEFAULT_PAYMENT_API_BASE = "https://api.stripe.com";

/** Billing's settings from the environment; see `parseBillingConfig`. */
export interface BillingConfig {
  /** `SVC_PAYMENT_API_KEY`: the processor's secret key; unset turns checkout off (501). */
  readonly apiKey: string | undefined;
  /** `SVC_PAYMENT_WEBHOOK_SECRET`: the webhook signing secret; unset turns the webhook off (501). */
  readonly webhookSecret: string | undefined;
  /** `SVC_PAYMENT_API_BASE`: the processor's API address without a trailing slash. */
  readonly apiBase: string;
  /**
   * `SVC_PAYMENT_PRICES`: the price ids a checkout may sell (comma- or
   * space-separated); unset allows any price of the processor account.
   */
  readonly allowedPrices: readonly string[] | undefined;
}

/** An unset or empty variable is undefined; a value with whitespace is refused (it breaks headers). */
function secretOf(env: Readonly<Record<string, string | undefined>>, name: string) {
  const value = env[name];
  if (value === undefined || value === "") return undefined;
  if (/[\s\p{Cc}]/u.test(value)) {
    throw new ConfigError(name, "must not contain whitespace or control characters");
  }
  return value;
}

/**
 * `SVC_PAYMENT_API_BASE` checked and normalised: unset or empty is Stripe's
 * address; otherwise an absolute http(s) URL with no credentials, query or
 * fragment, returned without a trailing slash. Throws a `ConfigError`
 * naming the variable.
 */
export function normalizeApiBase(value: string | undefined): string {
  if (value === undefined || value === "") return DEFAULT_PAYMENT_API_BASE;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError("SVC_PAYMENT_API_BASE", "must be an absolute http(s) URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConfigError("SVC_PAYMENT_API_BASE", "must be an absolute http(s) URL");
  }
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
    throw new ConfigError(
      "SVC_PAYMENT_API_BASE",
      "must not carry credentials, a query or a fragment",
    );
  }
  return url.toString().replace(/\/+$/, "");
}

const PRICE_ID = /^[A-Za-z0-9_-]{1,255}$/;

function pricesOf(value: string | undefined): readonly string[] | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const prices = value.split(/[\s,]+/).filter((price) => price !== "");
  const bad = prices.find((price) => !PRICE_ID.test(price));
  if (bad !== undefined) {
    throw new ConfigError("SVC_PAYMENT_PRICES", `holds "${bad}", which is not a price id`);
  }
  return prices;
}

/**
 * Reads billing's variables. Unset (or empty) `SVC_PAYMENT_API_KEY` and
 * `SVC_PAYMENT_WEBHOOK_SECRET` are allowed: the checkout and webhook routes
 * then answer 501. `SVC_PAYMENT_API_BASE` (an svc addition, default
 * `https://api.stripe.com`) points the processor calls elsewhere, e.g. at a
 * local fake in tests; `SVC_PAYMENT_PRICES` (an svc addition) limits what a
 * checkout may sell. Throws a `ConfigError` naming the variable for a
 * malformed value.
 *
 * @example
 * const config = parseBillingConfig(process.env);
 * const billing = createBilling({ store, db, dialect, trustedOrigins, ...config });
 */
export function parseBillingConfig(
  env: Readonly<Record<string, string | undefined>>,
): BillingConfig {
  return {
    apiKey: secretOf(env, "SVC_PAYMENT_API_KEY"),
    webhookSecret: secretOf(env, "SVC_PAYMENT_WEBHOOK_SECRET"),
    apiBase: normalizeApiBase(env.SVC_PAYMENT_API_BASE),
    allowedPrices: pricesOf(env.SVC_PAYMENT_PRICES),
  };
}
