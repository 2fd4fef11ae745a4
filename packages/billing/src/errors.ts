import { commonError, commonErrors, defineErrors, type ErrorTable } from "@svc/schema";

/**
 * Every failure @svc/billing reports, keyed by a stable code, with the
 * status and message the client sees. Codes named by the svc specification
 * (`AUTH_REQUIRED`, `MISSING_PRICES`, `PAYMENT_NOT_CONFIGURED`,
 * `WEBHOOK_NOT_CONFIGURED`, `PAYMENT_FAILED`, `WEBHOOK_INVALID`,
 * `USER_NOT_FOUND`, `INVALID_JSON`) keep its statuses; the others are svc
 * additions, listed in the README. Messages are fixed: the processor's
 * answer, a key or a secret never reaches them (the underlying failure is
 * kept in `cause`, for the server's log only).
 */
export const billingErrorCodes = {
  ...commonError(
    "AUTH_REQUIRED",
    "Billing needs a signed-in session (not a guest, an API key or a JWT).",
  ),
  ...commonErrors("ADMIN_REQUIRED", "INVALID_JSON", "PAYLOAD_TOO_LARGE"),
  MISSING_PRICES: {
    status: 400,
    message: "priceIds must be a non-empty array of price id strings.",
  },
  TOO_MANY_PRICES: { status: 400, message: "A checkout takes at most 20 price ids." },
  PRICE_NOT_ALLOWED: {
    status: 400,
    message: "A price id is not one this application sells (SVC_PAYMENT_PRICES).",
  },
  INVALID_MODE: { status: 400, message: "mode must be subscription or payment." },
  PAYMENT_NOT_CONFIGURED: {
    status: 501,
    message: "Payments are not configured on this server (SVC_PAYMENT_API_KEY is unset).",
  },
  WEBHOOK_NOT_CONFIGURED: {
    status: 501,
    message:
      "Payment webhooks are not configured on this server (SVC_PAYMENT_WEBHOOK_SECRET is unset).",
  },
  PAYMENT_FAILED: {
    status: 502,
    message: "The payment processor could not complete the request; try again later.",
  },
  WEBHOOK_INVALID: {
    status: 400,
    message: "The webhook signature, timestamp or payload is invalid.",
  },
  ...commonErrors("USER_NOT_FOUND"),
  EVENT_NOT_FOUND: { status: 404, message: "No billing event with this id was recorded." },
} as const satisfies ErrorTable;

/** A stable @svc/billing error code. */
export type BillingErrorCode = keyof typeof billingErrorCodes;

/**
 * The single error class of @svc/billing; tell cases apart by `code`. Every
 * instance is a wire error (`expose: true`): its message is the table's
 * fixed text, safe to send to the client, and `cause` holds what went wrong
 * underneath (a processor's error text, a parse failure) for the log.
 *
 * @example
 * throw new BillingError("PAYMENT_FAILED", { cause: new Error("card_declined") });
 */
export class BillingError extends defineErrors("BillingError", billingErrorCodes) {}
