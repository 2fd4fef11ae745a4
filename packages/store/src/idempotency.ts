import type { Kysely } from "kysely";
import type { EntityTables } from "./database.js";
import type { PackageMigrations } from "./package-migrations.js";

/** The table of recorded idempotent writes, in the application database. */
export const IDEMPOTENCY_TABLE = "svc_idempotency";

/**
 * The idempotency table's plan, for `store.migrate({ packages: [idempotencyMigrations()] })`.
 * One row per (caller, key): the write it was used for (`target` plus a hash
 * of the arguments) and, once the write is done, the answer to replay. It
 * lives in the application database so a mutation records its key in its
 * own transaction.
 */
export function idempotencyMigrations(): PackageMigrations {
  return {
    owner: "@svc/store",
    migrations: [
      {
        id: "001_idempotency",
        async up(db) {
          await db.schema
            .createTable(IDEMPOTENCY_TABLE)
            .addColumn("scope", "text", (col) => col.notNull())
            .addColumn("key", "text", (col) => col.notNull())
            .addColumn("target", "text", (col) => col.notNull())
            .addColumn("args_hash", "text", (col) => col.notNull())
            // Null while an action still runs (a mutation's row is never seen pending).
            .addColumn("status", "integer")
            .addColumn("body", "text")
            .addColumn("created_at", "bigint", (col) => col.notNull())
            .addColumn("expires_at", "bigint", (col) => col.notNull())
            .addPrimaryKeyConstraint(`${IDEMPOTENCY_TABLE}_pkey`, ["scope", "key"])
            .execute();
          await db.schema
            .createIndex(`${IDEMPOTENCY_TABLE}_expires`)
            .on(IDEMPOTENCY_TABLE)
            .column("expires_at")
            .execute();
        },
      },
    ],
  };
}

/** Which write a key is claimed for. */
export interface IdempotencyClaim {
  /** Who calls, e.g. `user:<id>` or `admin`: keys of different callers never meet. */
  readonly scope: string;
  /** The client's `Idempotency-Key`. */
  readonly key: string;
  /** The write, e.g. `fn:createTodo` or `insert:Todo`. */
  readonly target: string;
  /** A hash of the write's arguments. */
  readonly argsHash: string;
  /** Unix ms. */
  readonly now: number;
  /** Unix ms until which the claim holds; a completed write gets `complete`'s expiry. */
  readonly expiresAt: number;
}

/** A recorded answer. */
export interface RecordedResponse {
  readonly status: number;
  /** The JSON body as sent. */
  readonly body: string;
}

/**
 * What claiming a key found: `claimed` (the write may run), `replay` (done
 * before: answer this), `mismatch` (used for another write or other
 * arguments) or `pending` (an action with this key still runs).
 */
export type IdempotencyOutcome =
  | { readonly kind: "claimed" }
  | { readonly kind: "replay"; readonly response: RecordedResponse }
  | { readonly kind: "mismatch" }
  | { readonly kind: "pending" };

interface StoredRow {
  target: unknown;
  args_hash: unknown;
  status: unknown;
  body: unknown;
}

/**
 * Claims `claim.key` for one write inside `db` (a transaction): an expired
 * row of the key is dropped first, then a pending row is inserted. The
 * primary key makes a concurrent claim of the same key wait for this
 * transaction (Postgres) or run after it (SQLite's one writer), so it then
 * finds the recorded answer instead of running the write twice.
 */
export async function claimIdempotencyKey(
  db: Kysely<EntityTables>,
  claim: IdempotencyClaim,
): Promise<IdempotencyOutcome> {
  await db
    .deleteFrom(IDEMPOTENCY_TABLE)
    .where("scope", "=", claim.scope)
    .where("key", "=", claim.key)
    .where("expires_at", "<=", claim.now)
    .execute();
  const inserted = await db
    .insertInto(IDEMPOTENCY_TABLE)
    .values({
      scope: claim.scope,
      key: claim.key,
      target: claim.target,
      args_hash: claim.argsHash,
      status: null,
      body: null,
      created_at: claim.now,
      expires_at: claim.expiresAt,
    })
    .onConflict((oc) => oc.columns(["scope", "key"]).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return { kind: "claimed" };
  const row = (await db
    .selectFrom(IDEMPOTENCY_TABLE)
    .select(["target", "args_hash", "status", "body"])
    .where("scope", "=", claim.scope)
    .where("key", "=", claim.key)
    .executeTakeFirst()) as StoredRow | undefined;
  // Gone between the insert and the read: a pending action gave it up.
  if (row === undefined) return { kind: "pending" };
  if (row.target !== claim.target || row.args_hash !== claim.argsHash) return { kind: "mismatch" };
  if (row.status === null || typeof row.body !== "string") return { kind: "pending" };
  return { kind: "replay", response: { status: Number(row.status), body: row.body } };
}

/** Records the answer of a claimed key, kept until `expiresAt` (unix ms). */
export async function completeIdempotencyKey(
  db: Kysely<EntityTables>,
  input: { scope: string; key: string; response: RecordedResponse; expiresAt: number },
): Promise<void> {
  await db
    .updateTable(IDEMPOTENCY_TABLE)
    .set({ status: input.response.status, body: input.response.body, expires_at: input.expiresAt })
    .where("scope", "=", input.scope)
    .where("key", "=", input.key)
    .execute();
}

/** Gives up a pending claim (a failed action), so a retry may run the write. */
export async function releaseIdempotencyKey(
  db: Kysely<EntityTables>,
  input: { scope: string; key: string },
): Promise<void> {
  await db
    .deleteFrom(IDEMPOTENCY_TABLE)
    .where("scope", "=", input.scope)
    .where("key", "=", input.key)
    .where("status", "is", null)
    .execute();
}

/** Deletes every key expired at `now` (unix ms); resolves with how many. */
export async function pruneIdempotencyKeys(db: Kysely<EntityTables>, now: number): Promise<number> {
  const result = await db
    .deleteFrom(IDEMPOTENCY_TABLE)
    .where("expires_at", "<=", now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
