import { z } from "zod";
import type { BillingEvent } from "./event.js";

/** What a subscription event says about one subscription. */
export interface SubscriptionUpdate {
  readonly id: string;
  readonly customerId: string;
  readonly status: string;
  readonly priceIds: readonly string[];
  /** Unix seconds, or null when the processor gave none. */
  readonly currentPeriodEnd: number | null;
}

const idOrObject = z.union([z.string().min(1), z.looseObject({ id: z.string().min(1) })]);
const periodEnd = z.number().int().nullable().optional();

const subscriptionObject = z.looseObject({
  object: z.literal("subscription"),
  id: z.string().min(1).max(255),
  customer: idOrObject,
  status: z.string().min(1).max(64),
  current_period_end: periodEnd,
  plan: z
    .looseObject({ id: z.string().min(1) })
    .nullable()
    .optional(),
  items: z
    .looseObject({
      data: z.array(
        z.looseObject({
          price: idOrObject.nullable().optional(),
          plan: z
            .looseObject({ id: z.string().min(1) })
            .nullable()
            .optional(),
          current_period_end: periodEnd,
        }),
      ),
    })
    .optional(),
});

function idOf(value: string | { id: string }): string {
  return typeof value === "string" ? value : value.id;
}

/**
 * The subscription state carried by a `customer.subscription.*` event
 * (created, updated, deleted, paused, resumed, ...), or null for any other
 * event. Price ids come from the items (`price`, else the legacy `plan`);
 * the period end from the subscription, or, on API versions that moved it
 * to the items, the latest item's. A deleted subscription is `canceled`.
 */
export function subscriptionFromEvent(event: BillingEvent): SubscriptionUpdate | null {
  if (!event.type.startsWith("customer.subscription.")) return null;
  const parsed = subscriptionObject.safeParse(event.data.object);
  if (!parsed.success) return null;
  const subscription = parsed.data;
  const items = subscription.items?.data ?? [];
  const priceIds = new Set<string>();
  for (const item of items) {
    if (item.price !== undefined && item.price !== null) priceIds.add(idOf(item.price));
    else if (item.plan !== undefined && item.plan !== null) priceIds.add(item.plan.id);
  }
  if (priceIds.size === 0 && subscription.plan !== undefined && subscription.plan !== null) {
    priceIds.add(subscription.plan.id);
  }
  const itemEnds = items
    .map((item) => item.current_period_end)
    .filter((end): end is number => typeof end === "number");
  const currentPeriodEnd =
    subscription.current_period_end ?? (itemEnds.length > 0 ? Math.max(...itemEnds) : null);
  return {
    id: subscription.id,
    customerId: idOf(subscription.customer),
    status: event.type === "customer.subscription.deleted" ? "canceled" : subscription.status,
    priceIds: [...priceIds],
    currentPeriodEnd,
  };
}
