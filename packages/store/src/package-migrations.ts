import type { Kysely } from "kysely";
import type { EntityTables, StoreDialect } from "./database.js";
import { dialectFor } from "./dialect/dialect-for.js";
import { StoreError } from "./errors.js";

/** The table recording which package migrations have run. */
const HISTORY_TABLE = "_svc_migrations";

/** What a package migration is told about where it runs. */
export interface PackageMigrationContext {
  readonly dialect: StoreDialect;
  /**
   * The attached SQLite database the tables go to, when not the main one.
   * `db` is already scoped to it; raw SQL must qualify names itself (SQLite
   * wants `create index auth.name on table`, the table left unqualified).
   */
  readonly schema: string | undefined;
}

/**
 * One step of a package's own schema, applied once. `up` runs inside the
 * store's migration transaction (after the entity tables), so a failure
 * leaves the database as it was. Write it with kysely's schema builder so it
 * runs on both dialects; `context` is there for the rare difference.
 */
export interface PackageMigration {
  /** Unique within its package and never changed once released, e.g. `001_sessions`. */
  readonly id: string;
  up(db: Kysely<EntityTables>, context: PackageMigrationContext): Promise<void>;
}

/**
 * The tables a framework package (auth, OAuth state, billing, sync, jobs)
 * owns, handed to `store.migrate({ packages })`. Each package keeps its own
 * history, keyed by `owner`; its migrations run in order, each once.
 *
 * @example
 * const sessions: PackageMigrations = {
 *   owner: "@svc/auth-core",
 *   migrations: [{ id: "001_sessions", up: (db) => db.schema.createTable("svc_sessions")
 *     .addColumn("id", "text", (c) => c.primaryKey()).execute() }],
 * };
 * await store.migrate({ packages: [sessions] });
 */
export interface PackageMigrations {
  /** The package's name, e.g. `@svc/auth-core`. */
  readonly owner: string;
  readonly migrations: readonly PackageMigration[];
  /**
   * Where the package's tables live when not in the main database: the name
   * of an attached SQLite database (see `openSqlite`'s `attach`). Migrations
   * then get a kysely instance scoped to it. Ignored on Postgres.
   */
  readonly schema?: string;
}

async function completedIds(db: Kysely<EntityTables>, owner: string): Promise<Set<string>> {
  await db.schema
    .createTable(HISTORY_TABLE)
    .ifNotExists()
    .addColumn("owner", "text", (col) => col.notNull())
    .addColumn("id", "text", (col) => col.notNull())
    .addColumn("applied_at", "text", (col) => col.notNull())
    .addPrimaryKeyConstraint(`${HISTORY_TABLE}_pkey`, ["owner", "id"])
    .execute();
  const rows = await db.selectFrom(HISTORY_TABLE).select("id").where("owner", "=", owner).execute();
  return new Set(rows.map((row) => String(row.id)));
}

/**
 * Applies the migrations of each package that have not run yet, recording
 * each in a `_svc_migrations` table that lives beside the package's tables
 * (so an in-memory attached database starts its history afresh with its
 * tables). Runs inside the caller's transaction. Throws `MIGRATION_FAILED`
 * naming the package and step when one fails.
 */
export async function applyPackageMigrations(
  trx: Kysely<EntityTables>,
  dialect: StoreDialect,
  packages: readonly PackageMigrations[],
  now: Date,
): Promise<string[]> {
  const applied: string[] = [];
  for (const pkg of packages) {
    const schema = dialectFor(dialect).attachedSchema(pkg.schema);
    const db = dialectFor(dialect).withAttachedSchema(trx, schema);
    const done = await completedIds(db, pkg.owner);
    const seen = new Set<string>();
    for (const migration of pkg.migrations) {
      if (seen.has(migration.id)) {
        throw new StoreError("MIGRATION_FAILED", {
          message: `${pkg.owner} lists migration ${migration.id} twice.`,
        });
      }
      seen.add(migration.id);
      if (done.has(migration.id)) continue;
      try {
        await migration.up(db, { dialect, schema });
      } catch (error) {
        throw new StoreError("MIGRATION_FAILED", {
          message: `Could not apply ${pkg.owner} migration ${migration.id}; the database is unchanged.`,
          cause: error,
        });
      }
      await db
        .insertInto(HISTORY_TABLE)
        .values({ owner: pkg.owner, id: migration.id, applied_at: now.toISOString() })
        .execute();
      applied.push(`${pkg.owner} ${migration.id}`);
    }
  }
  return applied;
}
