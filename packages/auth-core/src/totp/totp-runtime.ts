import type { EntityTables } from "@svc/store";
import type { Kysely } from "kysely";
import { type AuditKind, recordAudit } from "../audit.js";
import { type AuthDatabase, accountTables, authTables } from "../auth-database.js";
import type { SignIn } from "../auth-runtime.js";
import { AuthError } from "../errors.js";
import { hmacHex } from "../secrets.js";
import type { ClientInfo } from "../session-store.js";
import type { AuthTables } from "../tables.js";
import { openSecret } from "./secret-box.js";
import type { TotpTable, TotpTables } from "./totp-tables.js";

/** The audit events TOTP writes (besides the sign-in's own `SignIn`). */
export type TotpAuditKind = "TotpEnable" | "TotpDisable" | "TrustedDeviceRevoke" | "SecondFactor";

/** What every TOTP operation shares; built once by `createTotp`. */
export interface TotpRuntime {
  readonly database: AuthDatabase;
  /** AES-256-GCM key of the stored secrets. */
  readonly secretKey: Buffer;
  /** HMAC key of backup codes and challenges. */
  readonly codeKey: Buffer;
  readonly issuer: string;
  now(): number;
  /** Creates the session, through `db` (a transaction) when given. */
  createSession(userId: string, client: ClientInfo, db?: Kysely<EntityTables>): Promise<SignIn>;
  emailOf(userId: string): Promise<string | null>;
}

/** TOTP's tables (application database) through `db`, default outside any transaction. */
export function totpTablesOf(runtime: TotpRuntime, db?: Kysely<EntityTables>): Kysely<TotpTables> {
  return (db ?? runtime.database.db) as unknown as Kysely<TotpTables>;
}

/** auth-core's session-store tables (trusted devices) through `db`. */
export function sessionTablesOf(
  runtime: TotpRuntime,
  db?: Kysely<EntityTables>,
): Kysely<AuthTables> {
  return authTables(runtime.database, db);
}

/** A user's TOTP row with its numbers as numbers (Postgres answers `bigint` as strings). */
export async function readTotp(
  db: Kysely<TotpTables>,
  userId: string,
): Promise<TotpTable | undefined> {
  const row = await db
    .selectFrom("svc_totp")
    .selectAll()
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const numberOrNull = (value: number | null): number | null =>
    value === null ? null : Number(value);
  return {
    ...row,
    enabled_at: numberOrNull(row.enabled_at),
    created_at: Number(row.created_at),
    last_step: numberOrNull(row.last_step),
    attempts: Number(row.attempts),
    attempts_since: numberOrNull(row.attempts_since),
  };
}

/** The plain secret of a TOTP row. */
export function secretOf(runtime: TotpRuntime, row: TotpTable): Uint8Array {
  try {
    return openSecret(runtime.secretKey, row.secret_enc, row.user_id);
  } catch (cause) {
    // Only a changed deployment secret (or a hand-edited row) gets here; an
    // administrator resets the factor with DELETE /api/admin/users/<id>/totp.
    throw new AuthError("TOTP_UNREADABLE", { cause });
  }
}

/** The HMAC a (normalized) backup code is stored and looked up as, bound to its user. */
export function backupCodeHash(runtime: TotpRuntime, userId: string, code: string): string {
  return hmacHex(runtime.codeKey, "backup", userId, code);
}

/** Writes one TOTP audit event through `db` (a transaction, when it must commit with the change). */
export async function recordTotpAudit(
  runtime: TotpRuntime,
  event: {
    userId: string;
    kind: TotpAuditKind;
    data?: Readonly<Record<string, unknown>>;
    ip?: string | undefined;
    db?: Kysely<EntityTables>;
  },
): Promise<void> {
  await recordAudit(accountTables(runtime.database, event.db), {
    userId: event.userId,
    // The cast goes once these kinds are in `auditKinds`.
    kind: event.kind as string as AuditKind,
    at: runtime.now(),
    ...(event.data !== undefined && { data: event.data }),
    ip: event.ip,
  });
}
