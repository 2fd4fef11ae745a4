import type { AuthDatabase } from "@svc/auth-core";
import { dialectFor, type PackageMigrations } from "@svc/store";

/**
 * The studio's sign-ins, one row each: `id` is the SHA-256 (hex) of the
 * random id the `svc_studio` cookie carries, never the id itself; times are
 * unix milliseconds (`bigint`, integers on SQLite).
 */
export const STUDIO_SESSIONS_TABLE = "svc_studio_sessions";

/**
 * Where the studio's sessions live: beside auth-core's sessions, so on
 * SQLite in the attached session database (`SVC_SESSION_DB`, in memory when
 * unset), on Postgres in the application database every server shares.
 */
export function studioSessionTable(database: AuthDatabase): AuthDatabase["db"] {
  return dialectFor(database.dialect).withAttachedSchema(database.db, database.schema);
}

/**
 * The studio's table plan, for `store.migrate({ packages })`, with the
 * schema auth-core's session tables use (`auth.database.schema`).
 *
 * Only the primary key is indexed: a studio request looks its session up
 * by id, and the scans that prune expired rows and keep the cap run at
 * sign-in over at most the cap's rows (1000 by default).
 */
export function studioMigrations(schema?: string): PackageMigrations {
  return {
    owner: "@svc/server/studio",
    ...(schema !== undefined && { schema }),
    migrations: [
      {
        id: "001_studio_sessions",
        async up(db) {
          await db.schema
            .createTable(STUDIO_SESSIONS_TABLE)
            .addColumn("id", "text", (col) => col.primaryKey())
            .addColumn("created_at", "bigint", (col) => col.notNull())
            .addColumn("expires_at", "bigint", (col) => col.notNull())
            .execute();
        },
      },
    ],
  };
}
