import type { Transport } from "./transport.js";
import type { CheckoutSession, Entitlements } from "./types.js";

/** Options of `billing.checkout`. */
export interface CheckoutOptions {
  /** The processor's price ids; at least one (`MISSING_PRICES` otherwise). */
  readonly priceIds: readonly string[];
  /** Default `"subscription"`. */
  readonly mode?: "subscription" | "payment";
  /** Where the processor sends the browser after paying; default `/billing/success` on the server. */
  readonly successUrl?: string;
  /** Where it sends the browser on cancel; default `/billing/cancel` on the server. */
  readonly cancelUrl?: string;
}

/** Hosted checkout and the caller's entitlements (real session only). */
export interface BillingClient {
  /** `POST /api/billing/checkout`: redirect the browser to the answer's `url`. 501 `PAYMENT_NOT_CONFIGURED` without a processor key. */
  checkout(options: CheckoutOptions): Promise<CheckoutSession>;
  /** `GET /api/billing/entitlements`: whether the caller has an active subscription, and which. */
  entitlements(): Promise<Entitlements>;
}

/** Builds `client.billing`. */
export function createBillingClient(transport: Transport): BillingClient {
  return {
    async checkout(options) {
      const body = {
        priceIds: options.priceIds,
        ...(options.mode !== undefined && { mode: options.mode }),
        ...(options.successUrl !== undefined && { successUrl: options.successUrl }),
        ...(options.cancelUrl !== undefined && { cancelUrl: options.cancelUrl }),
      };
      return (
        await transport.request<CheckoutSession>({
          method: "POST",
          path: "/api/billing/checkout",
          body,
        })
      ).data;
    },
    async entitlements() {
      return (
        await transport.request<Entitlements>({ method: "GET", path: "/api/billing/entitlements" })
      ).data;
    },
  };
}
