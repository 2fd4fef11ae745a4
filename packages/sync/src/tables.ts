import { dialectFor, type PackageMigrations } from "@svc/store";
import { type Generated, sql } from "kysely";

/** The name of the change log table, in the application database. */
export const CHANGES_TABLE = "svc_changes";

/**
 * One change log entry. On SQLite `seq` is the cursor, an `integer primary
 * key` (never reused: the log never shrinks below its newest entry, and a
 * reset's marker takes the next number). On Postgres the cursor is `pos`:
 * the writing transaction's id times 2^20 plus the entry's place in that
 * transaction, so cursor order is an order every reader agrees on without a
 * lock (see `createChangeLog`); `seq` stays as the table's key. Row images
 * are JSON text. A reset (`store.truncateAll()`) leaves one marker entry
 * with `op: "reset"` and empty `entity`/`row_id`; pruning on Postgres turns
 * the newest pruned entry into an `op: "floor"` marker, so readers can tell
 * whether entries after their cursor were pruned.
 */
export interface ChangesTable {
  /** Postgres returns `bigint` as a string; read it through `Number`. */
  seq: Generated<number | string>;
  /** Postgres only: the cursor (see above). */
  pos?: number | string;
  entity: string;
  op: "insert" | "update" | "delete" | "reset" | "floor";
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
            .addColumn("seq", dialectFor(dialect).serialKeyType, (col) => col.primaryKey())
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
      {
        // Postgres: the lock-free cursor. Existing entries keep their
        // sequence number as their position; new ones are numbered from
        // their transaction id, far above any sequence value in use.
        id: "002_positions",
        async up(db, { dialect }) {
          // Only where writers commit out of sequence order.
          if (!dialectFor(dialect).concurrentWriters) return;
          await db.schema.alterTable(CHANGES_TABLE).addColumn("pos", "bigint").execute();
          await sql`update ${sql.table(CHANGES_TABLE)} set pos = seq`.execute(db);
          // Entries pruned before this migration leave no marker: one goes
          // just below the oldest kept entry, so older cursors still resync.
          await sql`insert into ${sql.table(CHANGES_TABLE)} (entity, op, row_id, created_at, pos)
            select '', 'floor', '', 0, min(seq) - 1 from ${sql.table(CHANGES_TABLE)}
            having count(*) > 0 and min(seq) > 1`.execute(db);
          await sql`alter table ${sql.table(CHANGES_TABLE)} alter column pos set not null`.execute(
            db,
          );
          await db.schema
            .createIndex("svc_changes_pos")
            .on(CHANGES_TABLE)
            .column("pos")
            .unique()
            .execute();
        },
      },
    ],
  };
}
