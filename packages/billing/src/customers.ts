import { createHash } from "node:crypto";
import { adminAuth, type EntityReader, type Row, type Store } from "@svc/store";
import { sql } from "kysely";
import { BillingError } from "./errors.js";
import type { KeyedMutex } from "./keyed-mutex.js";
import type { PaymentProcessor } from "./stripe-client.js";
import { CUSTOMER_FIELD } from "./user-check.js";

/** The first key of billing's Postgres advisory locks ("SVCB"); the second is the user's. */
const LOCK_CLASS = 0x53564342;

/** A user's lock key: the first 4 bytes of SHA-256 of the id, as a signed 32-bit integer. */
function lockKeyOf(userId: string): number {
  return createHash("sha256").update(userId).digest().readInt32BE(0);
}

/** The customer id stored on a User row, or null. */
export function customerIdOf(row: Row | null): string | null {
  const value = row?.[CUSTOMER_FIELD];
  return typeof value === "string" && value !== "" ? value : null;
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
  readonly processor: PaymentProcessor;
  /** Serialises a user's first checkouts within this process. */
  readonly mutex: KeyedMutex;
}

/**
 * The user's processor customer id, created on first use and stored in
 * `User.paymentCustomerId` through the store (as the admin, so the write is
 * validated and raises a change event). A stored id is reused; nothing a
 * caller sends can choose it.
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
  const known = customerIdOf(await userRow(deps.store.systemReader(), userId));
  if (known !== null) return known;
  return deps.mutex.run(userId, () =>
    deps.store.dialect === "postgres"
      ? createLockedOnPostgres(deps, userId)
      : createOnSqlite(deps, userId),
  );
}

async function createLockedOnPostgres(deps: CustomerDeps, userId: string): Promise<string> {
  return deps.store.frameworkTransaction(adminAuth, async (tx) => {
    await sql`select pg_advisory_xact_lock(${LOCK_CLASS}::int4, ${lockKeyOf(userId)}::int4)`.execute(
      tx.db,
    );
    const row = await userRow(tx.entities, userId);
    const stored = customerIdOf(row);
    if (stored !== null) return stored;
    const customer = await deps.processor.createCustomer({ userId, email: emailOf(row) });
    await tx.entities.update("User", userId, { [CUSTOMER_FIELD]: customer.id });
    return customer.id;
  });
}

async function createOnSqlite(deps: CustomerDeps, userId: string): Promise<string> {
  // The processor call stays outside the transaction: on SQLite a
  // transaction holds the only connection for its whole duration.
  const row = await userRow(deps.store.systemReader(), userId);
  const stored = customerIdOf(row);
  if (stored !== null) return stored;
  const customer = await deps.processor.createCustomer({ userId, email: emailOf(row) });
  return deps.store.transaction(adminAuth, async (tx) => {
    const current = customerIdOf(await userRow(tx, userId));
    if (current !== null) return current;
    await tx.update("User", userId, { [CUSTOMER_FIELD]: customer.id });
    return customer.id;
  });
}
