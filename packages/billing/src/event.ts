import { z } from "zod";

/**
 * A verified webhook event as the processor sent it. Only the fields billing
 * relies on are checked; everything else is kept as sent.
 */
export const billingEventSchema = z.looseObject({
  /** The processor's event id (`evt_…`), the ledger's key. */
  id: z.string().min(1).max(255),
  /** e.g. `customer.subscription.updated`. */
  type: z.string().min(1).max(255),
  /** When the processor created the event (unix seconds). */
  created: z.number().int().nonnegative(),
  /** The object the event is about, as it was when the event was created. */
  data: z.looseObject({ object: z.record(z.string(), z.unknown()) }),
});

/** See `billingEventSchema`. */
export type BillingEvent = z.infer<typeof billingEventSchema>;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The body as text and event, or null when it is not UTF-8 JSON of an event's shape. */
export function parseEvent(raw: Uint8Array): { event: BillingEvent; text: string } | null {
  let text: string;
  let json: unknown;
  try {
    text = utf8.decode(raw);
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = billingEventSchema.safeParse(json);
  return parsed.success ? { event: parsed.data, text } : null;
}
