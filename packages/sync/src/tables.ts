import type { PackageMigrations } from "@svc/store";
import type { Generated } from "kysely";

/** The name of the change log table, in the application database. */
export const CHANGES_TABLE = "svc_changes";

/**
 * One change log entry. `seq` is the cursor: a Postgres `bigserial`, a
 * SQLite `integer primary key` (never reused: the log never shrinks below its
 * newest entry, and a reset's marker takes the next number). Row images are
 * JSON text. A reset (`store.truncateAll()`) leaves one marker entry with
 * `op: "reset"` and empty `entity`/`row_id`.
 */
export interface ChangesTable {
  /** Postgres returns `bigint` as a string; read it through `Number`. */
  seq: Generated<number | string>;
  entity: string;
  op: "insert" | "update" | "delete" | "reset";
  row_id: string;
  /** The row after the write (JSON); null for a delete and a reset. */
  row: string | null;
  /** The whole row before the write (JSON), for update and delete; null otherwise. */
  previous: string | null;
  /** When the entry was written (unix ms). */
  created_at: number | string;
}

/** The tables @svc/sync reads and writes, for a typed kysely instance. */
export interface SyncTables {
  svc_changes: ChangesTable;
}

/**
 * The change log's table plan, for `store.migrate({ packages: [syncMigrations()] })`.
 * The table lives in the application database, so entries are written in
 * the same transaction as the changes they describe.
 */
export function syncMigrations(): PackageMigrations {
  return {
    owner: "@svc/sync",
    migrations: [
      {
        id: "001_changes",
        async up(db, { dialect }) {
          await db.schema
            .createTable(CHANGES_TABLE)
            // On SQLite a plain rowid key (no AUTOINCREMENT bookkeeping per
            // insert): prune keeps the newest entry and a reset's marker takes
            // max + 1, so a new entry always gets a number never used before.
            .addColumn("seq", dialect === "postgres" ? "bigserial" : "integer", (col) =>
              col.primaryKey(),
            )
            .addColumn("entity", "text", (col) => col.notNull())
            .addColumn("op", "text", (col) => col.notNull())
            .addColumn("row_id", "text", (col) => col.notNull())
            .addColumn("row", "text")
            .addColumn("previous", "text")
            // No index on created_at: it would cost every write, and pruning
            // by age walks the key from the oldest end instead.
            .addColumn("created_at", "bigint", (col) => col.notNull())
            .execute();
        },
      },
    ],
  };
}
