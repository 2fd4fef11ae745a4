import { resolveRedirect } from "@svc/auth-core";
import { type AuthContext, isRealSession } from "@svc/schema";
import { BillingError } from "./errors.js";

/** Where the browser goes after a paid or abandoned checkout, unless the request says otherwise. */
export const DEFAULT_SUCCESS_PATH = "/billing/success";
export const DEFAULT_CANCEL_PATH = "/billing/cancel";

/** Most price ids one checkout takes (the processor's line item limit in subscription mode). */
export const MAX_PRICE_IDS = 20;

/** What `checkout` answers: the hosted page to send the browser to, and the session id. */
export interface CheckoutResult {
  readonly url: string;
  readonly id: string;
}

/** A checkout request after validation, with absolute, trusted redirect addresses. */
export interface CheckoutRequest {
  readonly priceIds: readonly string[];
  readonly mode: "subscription" | "payment";
  readonly successUrl: string;
  readonly cancelUrl: string;
}

/**
 * The user behind a billing request: only a real session (not a guest, an
 * API key, a JWT or the admin token) may start a checkout or read its own
 * entitlements. Everyone else is 401 `AUTH_REQUIRED`, the spec's code for
 * checkout.
 */
export function requireBillingCaller(auth: AuthContext): string {
  if (!isRealSession(auth) || auth.isAdmin || auth.userId === null) {
    throw new BillingError("AUTH_REQUIRED");
  }
  return auth.userId;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function priceIdsOf(value: unknown): string[] {
  const valid =
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item) => typeof item === "string" && item !== "" && item.length <= 255);
  if (!valid) throw new BillingError("MISSING_PRICES");
  if (value.length > MAX_PRICE_IDS) throw new BillingError("TOO_MANY_PRICES");
  return value as string[];
}

function modeOf(value: unknown): "subscription" | "payment" {
  if (value === undefined || value === null) return "subscription";
  if (value === "subscription" || value === "payment") return value;
  throw new BillingError("INVALID_MODE");
}

/**
 * Validates a checkout body `{priceIds, mode?, successUrl?, cancelUrl?}`.
 * A body that is not an object reads as `{}`; unknown fields (a customer
 * id, say) are ignored. Relative redirect paths resolve against `baseURL`;
 * an absolute one must be on `trustedOrigins` (or `baseURL`'s origin), else
 * 400 `INVALID_REDIRECT` (auth-core's `resolveRedirect`). With
 * `allowedPrices`, any other price is 400 `PRICE_NOT_ALLOWED`, before the
 * processor is asked.
 */
export function parseCheckoutRequest(
  body: unknown,
  options: {
    baseURL: string;
    trustedOrigins: readonly string[];
    /** When given, every price must be one of these (else 400 `PRICE_NOT_ALLOWED`). */
    allowedPrices?: readonly string[] | undefined;
  },
): CheckoutRequest {
  const fields = isRecord(body) ? body : {};
  const priceIds = priceIdsOf(fields.priceIds);
  const allowed = options.allowedPrices;
  if (allowed !== undefined && priceIds.some((price) => !allowed.includes(price))) {
    throw new BillingError("PRICE_NOT_ALLOWED");
  }
  const mode = modeOf(fields.mode);
  const redirect = (value: unknown, fallback: string): string =>
    resolveRedirect(value === undefined || value === null ? fallback : value, options);
  return {
    priceIds,
    mode,
    successUrl: redirect(fields.successUrl, DEFAULT_SUCCESS_PATH),
    cancelUrl: redirect(fields.cancelUrl, DEFAULT_CANCEL_PATH),
  };
}
