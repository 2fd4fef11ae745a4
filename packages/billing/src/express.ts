export {
  type BillingModule,
  type BillingModuleOptions,
  billingModule,
  type CallerChangeChannel,
} from "./express/billing-module.js";
export {
  BILLING_WEBHOOK_PATH,
  type BillingRouterOptions,
  createBillingRouter,
  DEFAULT_WEBHOOK_LIMIT_BYTES,
  isBillingWebhook,
} from "./express/billing-router.js";
