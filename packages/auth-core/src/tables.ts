import type { PackageMigrations } from "@svc/store";
import { type Kysely, sql } from "kysely";

// auth-core's own tables. Times are unix milliseconds in `bigint` columns
// (integers on SQLite); secrets are never stored, only their hashes.

/** A signed-in device: the SHA-256 of its `svc_` token is the primary key. */
export interface SessionsTable {
  id: string;
  user_id: string;
  /** `session` for a real sign-in, `guest` for a guest session. */
  kind: "session" | "guest";
  created_at: number;
  expires_at: number;
  user_agent: string | null;
  ip: string | null;
}

/**
 * One outstanding one-time secret per purpose and subject: a magic or email
 * verification code, a phone code or a magic-link token. `code_hash` is an
 * HMAC of the code under the deployment's secret; `sent_at` drives the send
 * cooldown, `attempts` the wrong-guess cap.
 */
export interface CodesTable {
  id: string;
  purpose: string;
  subject: string;
  code_hash: string;
  sent_at: number;
  expires_at: number;
  attempts: number;
  consumed_at: number | null;
}

/** A user's argon2id password hash (PHC string). */
export interface PasswordsTable {
  user_id: string;
  hash: string;
  updated_at: number;
}

/** Fixed-window counters of the sign-in rate limiter, shared by every server on one database. */
export interface RateLimitsTable {
  key: string;
  hits: number;
  reset_at: number;
}

/** The tables auth-core reads and writes, for a typed kysely instance. */
export interface AuthTables {
  svc_sessions: SessionsTable;
  svc_codes: CodesTable;
  svc_passwords: PasswordsTable;
  svc_rate_limits: RateLimitsTable;
}

/** auth-core's tables in the session store (`SVC_SESSION_DB` on SQLite). */
export const sessionTableNames = [
  "svc_sessions",
  "svc_codes",
  "svc_rate_limits",
] as const satisfies readonly (keyof AuthTables)[];

/** auth-core's tables that always live in the application database. */
export const accountTableNames = ["svc_passwords"] as const satisfies readonly (keyof AuthTables)[];

/**
 * auth-core's table plans, for `store.migrate({ packages: authMigrations(schema) })`.
 *
 * Two groups, because they need different durability. Password hashes are
 * account data, like the `User` rows they belong to: they always live in the
 * application database. Sessions, one-time codes and rate-limit counters
 * are the spec's "session store": with `schema` (the attached SQLite
 * database of `SVC_SESSION_DB`, in memory when unset) they live there;
 * without it (always on Postgres) in the application database too.
 */
export function authMigrations(schema?: string): readonly PackageMigrations[] {
  return [
    {
      owner: "@svc/auth-core",
      migrations: [
        {
          id: "001_passwords",
          async up(untyped) {
            const db = untyped as unknown as Kysely<AuthTables>;
            await db.schema
              .createTable("svc_passwords")
              .addColumn("user_id", "text", (col) => col.primaryKey())
              .addColumn("hash", "text", (col) => col.notNull())
              .addColumn("updated_at", "bigint", (col) => col.notNull())
              .execute();
          },
        },
      ],
    },
    {
      owner: "@svc/auth-core/sessions",
      ...(schema !== undefined && { schema }),
      migrations: [
        {
          id: "001_sessions_codes_limits",
          async up(untyped, context) {
            const db = untyped as unknown as Kysely<AuthTables>;
            await db.schema
              .createTable("svc_sessions")
              .addColumn("id", "text", (col) => col.primaryKey())
              .addColumn("user_id", "text", (col) => col.notNull())
              .addColumn("kind", "text", (col) => col.notNull())
              .addColumn("created_at", "bigint", (col) => col.notNull())
              .addColumn("expires_at", "bigint", (col) => col.notNull())
              .addColumn("user_agent", "text")
              .addColumn("ip", "text")
              .execute();
            // In an attached SQLite database the index name carries the schema
            // and the table must not, which kysely's builder cannot express.
            const index =
              context.schema === undefined
                ? sql.id("svc_sessions_user_id")
                : sql`${sql.id(context.schema)}.${sql.id("svc_sessions_user_id")}`;
            await sql`create index ${index} on ${sql.id("svc_sessions")} (${sql.id("user_id")})`.execute(
              db,
            );
            await db.schema
              .createTable("svc_codes")
              .addColumn("id", "text", (col) => col.primaryKey())
              .addColumn("purpose", "text", (col) => col.notNull())
              .addColumn("subject", "text", (col) => col.notNull())
              .addColumn("code_hash", "text", (col) => col.notNull())
              .addColumn("sent_at", "bigint", (col) => col.notNull())
              .addColumn("expires_at", "bigint", (col) => col.notNull())
              .addColumn("attempts", "integer", (col) => col.notNull())
              .addColumn("consumed_at", "bigint")
              .addUniqueConstraint("svc_codes_purpose_subject", ["purpose", "subject"])
              .execute();
            await db.schema
              .createTable("svc_rate_limits")
              .addColumn("key", "text", (col) => col.primaryKey())
              .addColumn("hits", "integer", (col) => col.notNull())
              .addColumn("reset_at", "bigint", (col) => col.notNull())
              .execute();
          },
        },
      ],
    },
  ];
}
