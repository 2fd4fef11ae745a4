import type { PackageMigrations } from "@svc/store";
import type { Kysely } from "kysely";

// @svc/billing's own tables, always in the application database. Times the
// processor stamps (`created`, `current_period_end`) are unix seconds, as
// the processor sends them; times of this server's clock are unix
// milliseconds. Both live in `bigint` columns (integers on SQLite).

/**
 * The event ledger: every verified webhook event, once, by its id. A
 * redelivery finds the row and is acknowledged without being processed again.
 */
export interface BillingEventsTable {
  /** The processor's event id (`evt_…`). */
  id: string;
  /** The event type, e.g. `customer.subscription.updated`. */
  type: string;
  /** When the processor created the event (unix seconds). */
  created: number;
  /** The exact verified body (JSON text). */
  payload: string;
  /** When this server first received it (unix ms). */
  received_at: number;
  /** When the `onEvent` hook last finished without throwing (unix ms); null while pending or failed. */
  processed_at: number | null;
  /** The message of the hook's last failure; null when it has not failed. */
  hook_error: string | null;
}

/** A subscription's current state as the newest event seen for it describes it. */
export interface BillingSubscriptionsTable {
  /** The processor's subscription id (`sub_…`). */
  id: string;
  /** The processor's customer id (`cus_…`). */
  customer_id: string;
  /** The user whose `User.paymentCustomerId` is `customer_id`, when one was found. */
  user_id: string | null;
  /** The processor's status: active, trialing, past_due, canceled, incomplete, unpaid, ... */
  status: string;
  /** The subscribed price ids, a JSON array of strings. */
  price_ids: string;
  /** End of the paid period (unix seconds), when the processor gave one. */
  current_period_end: number | null;
  /** `created` of the event this row was last written from (unix seconds): older events never overwrite. */
  event_created: number;
  /** The id of that event. */
  event_id: string;
  /** When this row was last written (unix ms). */
  updated_at: number;
}

/**
 * Which processor customer belongs to which user: billing's own record,
 * written when the customer is created. `User.paymentCustomerId` mirrors it
 * for the application to read, but an application may let users edit their
 * `User` row, so attribution never trusts that field.
 */
export interface BillingCustomersTable {
  user_id: string;
  customer_id: string;
  /** Unix ms. */
  created_at: number;
}

/** The tables @svc/billing reads and writes, for a typed kysely instance. */
export interface BillingTables {
  svc_billing_events: BillingEventsTable;
  svc_billing_subscriptions: BillingSubscriptionsTable;
  svc_billing_customers: BillingCustomersTable;
}

/**
 * Billing's table plan, for `store.migrate({ packages: [billingMigrations()] })`
 * (or `billing.migrations`). The tables live in the application database.
 */
export function billingMigrations(): PackageMigrations {
  return {
    owner: "@svc/billing",
    migrations: [
      {
        id: "001_events_subscriptions",
        async up(untyped) {
          const db = untyped as unknown as Kysely<BillingTables>;
          await db.schema
            .createTable("svc_billing_events")
            .addColumn("id", "text", (col) => col.primaryKey())
            .addColumn("type", "text", (col) => col.notNull())
            .addColumn("created", "bigint", (col) => col.notNull())
            .addColumn("payload", "text", (col) => col.notNull())
            .addColumn("received_at", "bigint", (col) => col.notNull())
            .addColumn("processed_at", "bigint")
            .addColumn("hook_error", "text")
            .execute();
          await db.schema
            .createIndex("svc_billing_events_type_created")
            .on("svc_billing_events")
            .columns(["type", "created"])
            .execute();
          await db.schema
            .createTable("svc_billing_subscriptions")
            .addColumn("id", "text", (col) => col.primaryKey())
            .addColumn("customer_id", "text", (col) => col.notNull())
            .addColumn("user_id", "text")
            .addColumn("status", "text", (col) => col.notNull())
            .addColumn("price_ids", "text", (col) => col.notNull())
            .addColumn("current_period_end", "bigint")
            .addColumn("event_created", "bigint", (col) => col.notNull())
            .addColumn("event_id", "text", (col) => col.notNull())
            .addColumn("updated_at", "bigint", (col) => col.notNull())
            .execute();
          await db.schema
            .createIndex("svc_billing_subscriptions_customer_id")
            .on("svc_billing_subscriptions")
            .column("customer_id")
            .execute();
          await db.schema
            .createIndex("svc_billing_subscriptions_user_id")
            .on("svc_billing_subscriptions")
            .column("user_id")
            .execute();
          await db.schema
            .createTable("svc_billing_customers")
            .addColumn("user_id", "text", (col) => col.primaryKey())
            .addColumn("customer_id", "text", (col) => col.notNull().unique())
            .addColumn("created_at", "bigint", (col) => col.notNull())
            .execute();
        },
      },
    ],
  };
}
