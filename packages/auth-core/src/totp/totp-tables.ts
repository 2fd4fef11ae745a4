import type { PackageMigrations } from "@svc/store";
import type { Kysely } from "kysely";

// TOTP's tables, in the application database beside the password hashes
// (account data, not session-store data). Times are unix milliseconds in
// `bigint` columns; secrets are stored encrypted, codes only as HMACs.

/**
 * A user's TOTP secret: pending from `enroll` until `confirm` sets
 * `enabled_at`. `secret_enc` is AES-256-GCM `iv | ciphertext | tag`,
 * base64url. `last_step` is the last accepted 30-second time step (replay
 * protection); `attempts` counts wrong codes since `attempts_since`.
 */
export interface TotpTable {
  user_id: string;
  secret_enc: string;
  enabled_at: number | null;
  created_at: number;
  last_step: number | null;
  attempts: number;
  attempts_since: number | null;
}

/** One backup code: only its HMAC is kept; `used_at` is set when it is spent. */
export interface BackupCodesTable {
  id: string;
  user_id: string;
  code_hash: string;
  used_at: number | null;
}

/**
 * An outstanding second-factor challenge of a sign-in: `id` is the HMAC of
 * the challenge token, so a leaked table yields no challenge.
 */
export interface TotpChallengesTable {
  id: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  attempts: number;
  consumed_at: number | null;
}

/** TOTP's tables, for a typed kysely instance. */
export interface TotpTables {
  svc_totp: TotpTable;
  svc_backup_codes: BackupCodesTable;
  svc_totp_challenges: TotpChallengesTable;
}

/**
 * TOTP's table plan, for `store.migrate({ packages: [...auth.migrations, totpMigrations()] })`:
 * `svc_totp`, `svc_backup_codes` and `svc_totp_challenges`, always in the
 * application database. (Trusted devices live in auth-core's
 * `svc_trusted_device`, in the session store.)
 */
export function totpMigrations(): PackageMigrations {
  return {
    owner: "@svc/auth-core/totp",
    migrations: [
      {
        id: "001_totp_backup_codes_challenges",
        async up(untyped) {
          const db = untyped as unknown as Kysely<TotpTables>;
          await db.schema
            .createTable("svc_totp")
            .addColumn("user_id", "text", (col) => col.primaryKey())
            .addColumn("secret_enc", "text", (col) => col.notNull())
            .addColumn("enabled_at", "bigint")
            .addColumn("created_at", "bigint", (col) => col.notNull())
            .addColumn("last_step", "bigint")
            .addColumn("attempts", "integer", (col) => col.notNull())
            .addColumn("attempts_since", "bigint")
            .execute();
          await db.schema
            .createTable("svc_backup_codes")
            .addColumn("id", "text", (col) => col.primaryKey())
            .addColumn("user_id", "text", (col) => col.notNull())
            .addColumn("code_hash", "text", (col) => col.notNull())
            .addColumn("used_at", "bigint")
            .execute();
          await db.schema
            .createIndex("svc_backup_codes_user_id")
            .on("svc_backup_codes")
            .column("user_id")
            .execute();
          await db.schema
            .createTable("svc_totp_challenges")
            .addColumn("id", "text", (col) => col.primaryKey())
            .addColumn("user_id", "text", (col) => col.notNull())
            .addColumn("created_at", "bigint", (col) => col.notNull())
            .addColumn("expires_at", "bigint", (col) => col.notNull())
            .addColumn("attempts", "integer", (col) => col.notNull())
            .addColumn("consumed_at", "bigint")
            .execute();
          await db.schema
            .createIndex("svc_totp_challenges_user_id")
            .on("svc_totp_challenges")
            .column("user_id")
            .execute();
          await db.schema
            .createIndex("svc_totp_challenges_expires_at")
            .on("svc_totp_challenges")
            .column("expires_at")
            .execute();
        },
      },
    ],
  };
}

/** The TOTP tables, all in the application database, in the order a reset empties them. */
export const totpTableNames = [
  "svc_totp_challenges",
  "svc_backup_codes",
  "svc_totp",
] as const satisfies readonly (keyof TotpTables)[];
