export {
  type CheckoutRequest,
  type CheckoutResult,
  DEFAULT_CANCEL_PATH,
  DEFAULT_SUCCESS_PATH,
  MAX_PRICE_IDS,
  parseCheckoutRequest,
  requireBillingCaller,
} from "./checkout.js";
export {
  type BillingConfig,
  DEFAULT_PAYMENT_API_BASE,
  normalizeApiBase,
  parseBillingConfig,
} from "./config.js";
export { type Billing, type BillingOptions, createBilling } from "./create-billing.js";
export { BillingError, type BillingErrorCode, billingErrorCodes } from "./errors.js";
export { type BillingEvent, billingEventSchema } from "./event.js";
export {
  SIGNATURE_TOLERANCE_SECS,
  type VerifySignatureInput,
  verifyWebhookSignature,
} from "./signature.js";
export { customerIdempotencyKey, DEFAULT_PROCESSOR_TIMEOUT_MS } from "./stripe-client.js";
export {
  type BillingSubscription,
  DEFAULT_ACTIVE_STATUSES,
  type Entitlements,
} from "./subscriptions.js";
export {
  type BillingEventsTable,
  type BillingSubscriptionsTable,
  type BillingTables,
  billingMigrations,
} from "./tables.js";
export { CUSTOMER_FIELD, checkBillingUser } from "./user-check.js";
export type { BillingEventHook, ReplayResult } from "./webhook.js";
