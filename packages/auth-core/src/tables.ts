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
  /** The organization the session selected (`POST /api/auth/orgs/select`), or null. */
  active_org_id: string | null;
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

/**
 * An API key: only an HMAC of its secret is kept. Times are unix seconds,
 * as the spec's API key record has them.
 */
export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  secret_hash: string;
  scopes: string | null;
  expires_at: number | null;
  last_used_at: number | null;
  created_at: number;
}

/** One audit event; `data` is a JSON object. Times are unix milliseconds. */
export interface AuditTable {
  id: string;
  user_id: string | null;
  kind: string;
  at: number;
  data: string;
  ip: string | null;
}

/** An external identity (OAuth, SSO) linked to a user; filled by @svc/oauth-providers. */
export interface LinkedAccountsTable {
  id: string;
  user_id: string;
  provider: string;
  provider_user_id: string;
  email: string | null;
  created_at: number;
}

/** A device trusted to skip the second factor (the spec's `svc_trusted_device`). */
export interface TrustedDeviceTable {
  id: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  user_agent: string | null;
}

/**
 * The revocation journal (`revocations.ts`): one row per committed change to
 * a user's credentials, read by every server to re-check its open live
 * connections. Times are unix milliseconds; rows are pruned after an hour.
 */
export interface AuthRevocationsTable {
  id: string;
  user_id: string;
  reason: string;
  at: number;
}

/** The tables auth-core reads and writes, for a typed kysely instance. */
export interface AuthTables {
  svc_auth_revocations: AuthRevocationsTable;
  svc_api_keys: ApiKeysTable;
  svc_audit: AuditTable;
  svc_linked_accounts: LinkedAccountsTable;
  svc_trusted_device: TrustedDeviceTable;
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
  "svc_api_keys",
  "svc_trusted_device",
  "svc_auth_revocations",
] as const satisfies readonly (keyof AuthTables)[];

/** auth-core's tables that always live in the application database. */
export const accountTableNames = [
  "svc_passwords",
  "svc_audit",
  "svc_linked_accounts",
] as const satisfies readonly (keyof AuthTables)[];

/**
 * `create index`: in an attached SQLite database the index name carries the
 * schema and the table must not, which kysely's builder cannot express.
 */
async function createIndex(
  db: Kysely<AuthTables>,
  schema: string | undefined,
  name: string,
  table: keyof AuthTables,
  columns: readonly string[],
  unique = false,
): Promise<void> {
  const qualified = schema === undefined ? sql.id(name) : sql`${sql.id(schema)}.${sql.id(name)}`;
  const list = sql.join(columns.map((column) => sql.id(column)));
  await sql`create ${sql.raw(unique ? "unique index" : "index")} ${qualified} on ${sql.id(table)} (${list})`.execute(
    db,
  );
}

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
        {
          id: "002_audit_linked_accounts",
          async up(untyped) {
            const db = untyped as unknown as Kysely<AuthTables>;
            await db.schema
              .createTable("svc_audit")
              .addColumn("id", "text", (col) => col.primaryKey())
              .addColumn("user_id", "text")
              .addColumn("kind", "text", (col) => col.notNull())
              .addColumn("at", "bigint", (col) => col.notNull())
              .addColumn("data", "text", (col) => col.notNull())
              .addColumn("ip", "text")
              .execute();
            await createIndex(db, undefined, "svc_audit_user_at", "svc_audit", ["user_id", "at"]);
            await createIndex(db, undefined, "svc_audit_at", "svc_audit", ["at"]);
            await db.schema
              .createTable("svc_linked_accounts")
              .addColumn("id", "text", (col) => col.primaryKey())
              .addColumn("user_id", "text", (col) => col.notNull())
              .addColumn("provider", "text", (col) => col.notNull())
              .addColumn("provider_user_id", "text", (col) => col.notNull())
              .addColumn("email", "text")
              .addColumn("created_at", "bigint", (col) => col.notNull())
              .addUniqueConstraint("svc_linked_accounts_identity", ["provider", "provider_user_id"])
              .execute();
            await createIndex(db, undefined, "svc_linked_accounts_user_id", "svc_linked_accounts", [
              "user_id",
            ]);
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
            await createIndex(db, context.schema, "svc_sessions_user_id", "svc_sessions", [
              "user_id",
            ]);
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
        {
          id: "002_api_keys_trusted_devices",
          async up(untyped, context) {
            const db = untyped as unknown as Kysely<AuthTables>;
            await db.schema
              .createTable("svc_api_keys")
              .addColumn("id", "text", (col) => col.primaryKey())
              .addColumn("user_id", "text", (col) => col.notNull())
              .addColumn("name", "text", (col) => col.notNull())
              .addColumn("prefix", "text", (col) => col.notNull())
              .addColumn("secret_hash", "text", (col) => col.notNull())
              .addColumn("scopes", "text")
              .addColumn("expires_at", "bigint")
              .addColumn("last_used_at", "bigint")
              .addColumn("created_at", "bigint", (col) => col.notNull())
              .execute();
            await createIndex(db, context.schema, "svc_api_keys_user_id", "svc_api_keys", [
              "user_id",
            ]);
            await db.schema
              .createTable("svc_trusted_device")
              .addColumn("id", "text", (col) => col.primaryKey())
              .addColumn("user_id", "text", (col) => col.notNull())
              .addColumn("created_at", "bigint", (col) => col.notNull())
              .addColumn("expires_at", "bigint", (col) => col.notNull())
              .addColumn("user_agent", "text")
              .execute();
            await createIndex(
              db,
              context.schema,
              "svc_trusted_device_user_id",
              "svc_trusted_device",
              ["user_id"],
            );
          },
        },
        {
          id: "003_session_active_org",
          async up(untyped) {
            const db = untyped as unknown as Kysely<AuthTables>;
            await db.schema.alterTable("svc_sessions").addColumn("active_org_id", "text").execute();
          },
        },
        {
          id: "004_revocation_journal",
          async up(untyped, context) {
            const db = untyped as unknown as Kysely<AuthTables>;
            await db.schema
              .createTable("svc_auth_revocations")
              .addColumn("id", "text", (col) => col.primaryKey())
              .addColumn("user_id", "text", (col) => col.notNull())
              .addColumn("reason", "text", (col) => col.notNull())
              .addColumn("at", "bigint", (col) => col.notNull())
              .execute();
            await createIndex(
              db,
              context.schema,
              "svc_auth_revocations_at",
              "svc_auth_revocations",
              ["at"],
            );
          },
        },
      ],
    },
  ];
}
