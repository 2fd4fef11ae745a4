import { randomUUID } from "node:crypto";
import { z } from "zod";
import { BillingError } from "./errors.js";

/** How long one processor call may take before it counts as a failure. */
export const DEFAULT_PROCESSOR_TIMEOUT_MS = 10_000;

/** What billing asks of the payment processor. */
export interface PaymentProcessor {
  /** Creates a customer for `userId`; the same user always sends the same idempotency key. */
  createCustomer(input: { userId: string; email: string | null }): Promise<{ id: string }>;
  /** Creates a hosted checkout session for an existing customer. */
  createCheckoutSession(input: CheckoutSessionInput): Promise<{ id: string; url: string }>;
}

/** The fields of a hosted checkout session. */
export interface CheckoutSessionInput {
  readonly customerId: string;
  readonly userId: string;
  readonly mode: "subscription" | "payment";
  readonly priceIds: readonly string[];
  readonly successUrl: string;
  readonly cancelUrl: string;
}

/** Options of `createStripeClient`. */
export interface StripeClientOptions {
  readonly apiKey: string;
  /** The API address without a trailing slash, e.g. `https://api.stripe.com`. */
  readonly apiBase: string;
  /** Default the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Default 10 seconds. */
  readonly timeoutMs?: number;
}

const customerAnswer = z.object({ id: z.string().min(1).max(255) });
const sessionAnswer = z.object({ id: z.string().min(1).max(255), url: z.url() });
const errorAnswer = z.object({
  error: z.object({
    type: z.string().optional(),
    code: z.string().optional(),
    message: z.string().optional(),
  }),
});

/** The idempotency key of a user's customer creation: two first checkouts create one customer. */
export function customerIdempotencyKey(userId: string): string {
  return `svc-customer-${userId}`;
}

function failed(message: string, cause?: unknown): BillingError {
  return new BillingError("PAYMENT_FAILED", { cause: new Error(message, { cause }) });
}

/**
 * A Stripe client over plain `fetch`: form-encoded bodies, `Authorization:
 * Bearer <key>`, an `Idempotency-Key` on every call, a timeout, and no
 * redirects followed. Any failure (unreachable, slow, a non-2xx answer, an
 * answer without the expected fields) is 502 `PAYMENT_FAILED`; the
 * processor's own message is only in the error's `cause`.
 */
export function createStripeClient(options: StripeClientOptions): PaymentProcessor {
  const fetchImpl = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROCESSOR_TIMEOUT_MS;

  async function post<T>(
    path: string,
    form: URLSearchParams,
    idempotencyKey: string,
    answer: z.ZodType<T>,
  ): Promise<T> {
    let status: number;
    let text: string;
    try {
      const response = await fetchImpl(`${options.apiBase}${path}`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${options.apiKey}`,
          "Content-Type": "application/x-www-form-urlencoded",
          Accept: "application/json",
          "Idempotency-Key": idempotencyKey,
          "User-Agent": "svc-billing",
        },
        body: form.toString(),
        redirect: "error",
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      throw failed(`POST ${path}: the processor could not be reached in time`, error);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw failed(`POST ${path}: answered ${status} with a body that is not JSON`, error);
    }
    if (status < 200 || status > 299) {
      const parsed = errorAnswer.safeParse(body);
      const detail = parsed.success
        ? [parsed.data.error.type, parsed.data.error.code, parsed.data.error.message]
            .filter((part) => part !== undefined)
            .join(": ")
        : "no error object";
      throw failed(`POST ${path}: answered ${status} (${detail})`);
    }
    const parsed = answer.safeParse(body);
    if (!parsed.success) {
      throw failed(`POST ${path}: answered ${status} without the expected fields`, parsed.error);
    }
    return parsed.data;
  }

  return {
    createCustomer({ userId, email }) {
      const form = new URLSearchParams();
      if (email !== null) form.set("email", email);
      form.set("metadata[svc_user_id]", userId);
      return post("/v1/customers", form, customerIdempotencyKey(userId), customerAnswer);
    },
    createCheckoutSession(input) {
      const form = new URLSearchParams();
      form.set("customer", input.customerId);
      form.set("mode", input.mode);
      input.priceIds.forEach((price, index) => {
        form.set(`line_items[${index}][price]`, price);
        form.set(`line_items[${index}][quantity]`, "1");
      });
      form.set("success_url", input.successUrl);
      form.set("cancel_url", input.cancelUrl);
      form.set("client_reference_id", input.userId);
      return post("/v1/checkout/sessions", form, `svc-checkout-${randomUUID()}`, sessionAnswer);
    },
  };
}
