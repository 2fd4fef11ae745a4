import { createHash } from "node:crypto";
import { findEntity } from "@svc/schema";
import {
  adminAuth,
  dialectFor,
  type EntityReader,
  type EntityTables,
  type EntityWriter,
  type Row,
  type Store,
} from "@svc/store";
import { type Kysely, sql } from "kysely";
import { BillingError } from "./errors.js";
import type { KeyedMutex } from "./keyed-mutex.js";
import type { PaymentProcessor } from "./stripe-client.js";
import type { BillingTables } from "./tables.js";
import { CUSTOMER_FIELD } from "./user-check.js";

/** The first key of billing's Postgres advisory locks ("SVCB"); the second is the user's. */
const LOCK_CLASS = 0x53564342;

/** A user's lock key: the first 4 bytes of SHA-256 of the id, as a signed 32-bit integer. */
function lockKeyOf(userId: string): number {
  return createHash("sha256").update(userId).digest().readInt32BE(0);
}

function tablesOf(db: Kysely<EntityTables>): Kysely<BillingTables> {
  return db as unknown as Kysely<BillingTables>;
}

/** The processor customer billing created for `userId`, or null. */
export async function customerOfUser(
  db: Kysely<EntityTables>,
  userId: string,
): Promise<string | null> {
  const row = await tablesOf(db)
    .selectFrom("svc_billing_customers")
    .select("customer_id")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return row?.customer_id ?? null;
}

/** The user billing created `customerId` for, or null (a customer made elsewhere). */
export async function userOfCustomer(
  db: Kysely<EntityTables>,
  customerId: string,
): Promise<string | null> {
  const row = await tablesOf(db)
    .selectFrom("svc_billing_customers")
    .select("user_id")
    .where("customer_id", "=", customerId)
    .executeTakeFirst();
  return row?.user_id ?? null;
}

function emailOf(row: Row): string | null {
  return typeof row.email === "string" && row.email !== "" ? row.email : null;
}

async function userRow(reader: EntityReader, userId: string): Promise<Row> {
  const row = await reader.get("User", userId);
  if (row === null) throw new BillingError("USER_NOT_FOUND");
  return row;
}

/** What `ensureCustomer` works with. */
export interface CustomerDeps {
  readonly store: Store;
  /** The store's kysely instance (billing's tables are in the application database). */
  readonly db: Kysely<EntityTables>;
  readonly processor: PaymentProcessor;
  /** Serialises a user's first checkouts within this process. */
  readonly mutex: KeyedMutex;
  /** Unix ms. */
  readonly now: () => number;
}

/**
 * Records the new customer in billing's own table and mirrors it on
 * `User.paymentCustomerId` (as the admin, so the write is validated and
 * raises a change event), in the caller's transaction.
 */
async function recordCustomer(
  deps: CustomerDeps,
  tx: { db: Kysely<EntityTables>; entities: EntityWriter },
  userId: string,
  customerId: string,
): Promise<void> {
  await tablesOf(tx.db)
    .insertInto("svc_billing_customers")
    .values({ user_id: userId, customer_id: customerId, created_at: deps.now() })
    .execute();
  const user = findEntity(deps.store.manifest, "User");
  if (user?.fields.some((field) => field.name === CUSTOMER_FIELD) === true) {
    await tx.entities.update("User", userId, { [CUSTOMER_FIELD]: customerId });
  }
}

/**
 * The user's processor customer id, created on first use. Billing keeps
 * which customer belongs to which user in its own table
 * (`svc_billing_customers`) and mirrors the id on `User.paymentCustomerId`;
 * it reads only its own table, so neither a caller's request nor a user
 * editing their own `User` row can choose the customer.
 *
 * Two first checkouts of one user create one customer, by two means: the
 * customer creation carries a fixed idempotency key per user
 * (`svc-customer-<userId>`), so the processor itself answers a repeat with
 * the same customer; and the creation is serialised per user, so the
 * second caller finds the id the first one stored. On Postgres the lock is
 * `pg_advisory_xact_lock` in the transaction that writes the id (across
 * every server on the database); on SQLite, a single process, it is an
 * in-process mutex, and the id is written only if still unset.
 */
export async function ensureCustomer(deps: CustomerDeps, userId: string): Promise<string> {
  const known = await customerOfUser(deps.db, userId);
  if (known !== null) return known;
  return deps.mutex.run(userId, () =>
    // Several servers write at once: an advisory lock serialises them.
    dialectFor(deps.store.dialect).concurrentWriters
      ? createLockedOnPostgres(deps, userId)
      : createOnSqlite(deps, userId),
  );
}

async function createLockedOnPostgres(deps: CustomerDeps, userId: string): Promise<string> {
  return deps.store.frameworkTransaction(adminAuth, async (tx) => {
    await sql`select pg_advisory_xact_lock(${LOCK_CLASS}::int4, ${lockKeyOf(userId)}::int4)`.execute(
      tx.db,
    );
    const stored = await customerOfUser(tx.db, userId);
    if (stored !== null) return stored;
    const row = await userRow(tx.entities, userId);
    const customer = await deps.processor.createCustomer({ userId, email: emailOf(row) });
    await recordCustomer(deps, tx, userId, customer.id);
    return customer.id;
  });
}

async function createOnSqlite(deps: CustomerDeps, userId: string): Promise<string> {
  // The processor call stays outside the transaction: on SQLite a
  // transaction holds the only connection for its whole duration.
  const row = await userRow(deps.store.systemReader(), userId);
  const stored = await customerOfUser(deps.db, userId);
  if (stored !== null) return stored;
  const customer = await deps.processor.createCustomer({ userId, email: emailOf(row) });
  return deps.store.frameworkTransaction(adminAuth, async (tx) => {
    const current = await customerOfUser(tx.db, userId);
    if (current !== null) return current;
    await recordCustomer(deps, tx, userId, customer.id);
    return customer.id;
  });
}
