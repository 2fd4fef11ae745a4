import type { Kysely } from "kysely";
import type { SubscriptionUpdate } from "./subscription-event.js";
import type { BillingSubscriptionsTable, BillingTables } from "./tables.js";

/** One subscription as billing reports it. */
export interface BillingSubscription {
  /** The processor's subscription id. */
  readonly id: string;
  /** The processor's status: active, trialing, past_due, canceled, incomplete, unpaid, ... */
  readonly status: string;
  readonly priceIds: readonly string[];
  /** End of the paid period in unix seconds, or null when unknown. */
  readonly currentPeriodEnd: number | null;
}

/** A user's plan state: `active` when any subscription has an entitling status. */
export interface Entitlements {
  readonly active: boolean;
  /** Entitling ones first, then the most recently changed. */
  readonly subscriptions: readonly BillingSubscription[];
}

/** The statuses that entitle by default: `active` and `trialing` (not `past_due`). */
export const DEFAULT_ACTIVE_STATUSES: readonly string[] = Object.freeze(["active", "trialing"]);

/**
 * Writes a subscription's state from an event, unless the row already
 * holds a newer event's (`created` later than this one's): a late, older
 * event never overwrites. Events created in the same second apply in
 * arrival order.
 */
export async function applySubscription(
  db: Kysely<BillingTables>,
  input: {
    update: SubscriptionUpdate;
    userId: string | null;
    eventId: string;
    eventCreated: number;
    now: number;
  },
): Promise<void> {
  const row = {
    id: input.update.id,
    customer_id: input.update.customerId,
    user_id: input.userId,
    status: input.update.status,
    price_ids: JSON.stringify(input.update.priceIds),
    current_period_end: input.update.currentPeriodEnd,
    event_created: input.eventCreated,
    event_id: input.eventId,
    updated_at: input.now,
  };
  await db
    .insertInto("svc_billing_subscriptions")
    .values(row)
    .onConflict((oc) =>
      oc
        .column("id")
        .doUpdateSet({
          customer_id: (eb) => eb.ref("excluded.customer_id"),
          // A user found once stays, should a later lookup miss.
          user_id: (eb) => eb.fn.coalesce("excluded.user_id", "svc_billing_subscriptions.user_id"),
          status: (eb) => eb.ref("excluded.status"),
          price_ids: (eb) => eb.ref("excluded.price_ids"),
          current_period_end: (eb) => eb.ref("excluded.current_period_end"),
          event_created: (eb) => eb.ref("excluded.event_created"),
          event_id: (eb) => eb.ref("excluded.event_id"),
          updated_at: (eb) => eb.ref("excluded.updated_at"),
        })
        .where((eb) =>
          eb("svc_billing_subscriptions.event_created", "<=", eb.ref("excluded.event_created")),
        ),
    )
    .execute();
}

function priceIdsOf(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item) => typeof item === "string") : [];
  } catch {
    return [];
  }
}

function toSubscription(row: BillingSubscriptionsTable): BillingSubscription {
  return {
    id: row.id,
    status: row.status,
    priceIds: priceIdsOf(row.price_ids),
    currentPeriodEnd: row.current_period_end === null ? null : Number(row.current_period_end),
  };
}

/** Orders rows entitling first, then by the newest event, then by id (a stable order). */
function ranked(
  rows: readonly BillingSubscriptionsTable[],
  activeStatuses: readonly string[],
): BillingSubscriptionsTable[] {
  const entitling = (row: BillingSubscriptionsTable): number =>
    activeStatuses.includes(row.status) ? 0 : 1;
  return [...rows].sort(
    (a, b) =>
      entitling(a) - entitling(b) ||
      Number(b.event_created) - Number(a.event_created) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/**
 * A user's entitlements: the subscriptions recorded for the user's
 * customer id (or attributed to the user when the event arrived).
 */
export async function readEntitlements(
  db: Kysely<BillingTables>,
  input: { userId: string; customerId: string | null; activeStatuses: readonly string[] },
): Promise<Entitlements> {
  const rows = await db
    .selectFrom("svc_billing_subscriptions")
    .selectAll()
    .where((eb) =>
      input.customerId === null
        ? eb("user_id", "=", input.userId)
        : eb.or([eb("user_id", "=", input.userId), eb("customer_id", "=", input.customerId)]),
    )
    .execute();
  const subscriptions = ranked(rows, input.activeStatuses).map(toSubscription);
  return {
    active: subscriptions.some((subscription) =>
      input.activeStatuses.includes(subscription.status),
    ),
    subscriptions,
  };
}

/** A customer's current subscription: an entitling one if any, else the most recently changed; null when none. */
export async function readCustomerSubscription(
  db: Kysely<BillingTables>,
  customerId: string,
  activeStatuses: readonly string[],
): Promise<BillingSubscription | null> {
  const rows = await db
    .selectFrom("svc_billing_subscriptions")
    .selectAll()
    .where("customer_id", "=", customerId)
    .execute();
  const first = ranked(rows, activeStatuses)[0];
  return first === undefined ? null : toSubscription(first);
}
