import type { PackageMigrations } from "@svc/store";
import { type Kysely, sql } from "kysely";

/**
 * One outstanding sign-in handshake. `id` is an HMAC-SHA256 of the state
 * parameter (the state itself is never stored); times are unix
 * milliseconds in `bigint` columns (integers on SQLite).
 */
export interface OAuthStateTable {
  id: string;
  provider: string;
  code_verifier: string;
  nonce: string;
  /** Where the browser goes after the sign-in, already checked against the trusted origins. */
  callback: string | null;
  /** How the callback hands over the session: `token` adds it to the fragment; null means the cookie only. */
  response: string | null;
  created_at: number;
  expires_at: number;
}

/** The tables this package reads and writes, for a typed kysely instance. */
export interface OAuthStateTables {
  svc_oauth_state: OAuthStateTable;
}

/**
 * The state store's table plan, for
 * `store.migrate({ packages: [oauthStateMigrations(schema)] })`. With
 * `schema` (an attached SQLite database, e.g. auth-core's session store)
 * the table lives there; without it (always on Postgres) in the
 * application database. Keep it in a file, not `:memory:`, for the state
 * to survive a restart mid-handshake.
 */
export function oauthStateMigrations(schema?: string): PackageMigrations {
  return {
    owner: "@svc/oauth-providers",
    ...(schema !== undefined && { schema }),
    migrations: [
      {
        id: "001_oauth_state",
        async up(untyped, context) {
          const db = untyped as unknown as Kysely<OAuthStateTables>;
          await db.schema
            .createTable("svc_oauth_state")
            .addColumn("id", "text", (col) => col.primaryKey())
            .addColumn("provider", "text", (col) => col.notNull())
            .addColumn("code_verifier", "text", (col) => col.notNull())
            .addColumn("nonce", "text", (col) => col.notNull())
            .addColumn("callback", "text")
            .addColumn("created_at", "bigint", (col) => col.notNull())
            .addColumn("expires_at", "bigint", (col) => col.notNull())
            .execute();
          // In an attached SQLite database the index name carries the schema.
          const name =
            context.schema === undefined
              ? sql.id("svc_oauth_state_expires_at")
              : sql`${sql.id(context.schema)}.${sql.id("svc_oauth_state_expires_at")}`;
          await sql`create index ${name} on ${sql.id("svc_oauth_state")} (${sql.id("expires_at")})`.execute(
            db,
          );
        },
      },
      {
        id: "002_oauth_state_response",
        async up(untyped) {
          const db = untyped as unknown as Kysely<OAuthStateTables>;
          await db.schema.alterTable("svc_oauth_state").addColumn("response", "text").execute();
        },
      },
    ],
  };
}
