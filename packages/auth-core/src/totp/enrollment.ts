import { randomBytes } from "node:crypto";
import { encodeBase32UpperCaseNoPadding } from "@oslojs/encoding";
import { createTOTPKeyURI } from "@oslojs/otp";
import type { AuthContext } from "@svc/schema";
import type { Kysely } from "kysely";
import { MAX_ATTEMPTS } from "../code-store.js";
import { AuthError, rateLimited } from "../errors.js";
import { requireRealSession } from "../real-session.js";
import { newRowId } from "../secrets.js";
import { lockLiveSession } from "../session-store.js";
import { newBackupCodes, normalizeBackupCode } from "./backup-codes.js";
import { sealSecret } from "./secret-box.js";
import { readFactor, spendFactor } from "./spend-factor.js";
import { matchTotpStep, TOTP_DIGITS, TOTP_PERIOD_SECS } from "./totp-code.js";
import { totpError } from "./totp-errors.js";
import {
  backupCodeHash,
  readTotp,
  recordTotpAudit,
  secretOf,
  sessionTablesOf,
  type TotpRuntime,
  totpTablesOf,
} from "./totp-runtime.js";
import type { TotpTable, TotpTables } from "./totp-tables.js";
import { deleteTrustedDevices } from "./trusted-devices.js";

/** The bytes of a new TOTP secret (160 bits, RFC 4226's recommendation). */
const SECRET_BYTES = 20;

/** How long wrong codes against an enabled secret count towards `MAX_ATTEMPTS`. */
export const WRONG_CODE_WINDOW_MS = 15 * 60 * 1000;

/** What `enroll` answers: the secret for manual entry and the `otpauth://` URI for a QR code. */
export interface TotpEnrollment {
  /** Base32, upper case, no padding. */
  readonly secret: string;
  readonly uri: string;
}

/** What `confirm` answers, once: the backup codes are never shown again. */
export interface TotpEnabled {
  readonly enabled: true;
  readonly backup_codes: readonly string[];
}

/** What `status` answers. */
export interface TotpStatus {
  readonly enabled: boolean;
  readonly backup_codes_left: number;
}

function isEnabled(row: TotpTable | undefined): row is TotpTable & { enabled_at: number } {
  return row !== undefined && row.enabled_at !== null;
}

/**
 * `POST /api/auth/totp/enroll`: a new pending secret (replacing an earlier
 * pending one). 409 `TOTP_ALREADY_ENABLED` when TOTP is on.
 */
export async function enroll(runtime: TotpRuntime, auth: AuthContext): Promise<TotpEnrollment> {
  const { userId } = requireRealSession(auth);
  const tables = totpTablesOf(runtime);
  if (isEnabled(await readTotp(tables, userId))) throw totpError("TOTP_ALREADY_ENABLED");
  const label = (await runtime.emailOf(userId)) ?? userId;
  const key = new Uint8Array(randomBytes(SECRET_BYTES));
  const now = runtime.now();
  const fresh: TotpTable = {
    user_id: userId,
    secret_enc: sealSecret(runtime.secretKey, key, userId),
    enabled_at: null,
    created_at: now,
    last_step: null,
    attempts: 0,
    attempts_since: null,
  };
  // Conditional on the row still being pending, so a concurrent confirm is never undone.
  const written = await tables
    .insertInto("svc_totp")
    .values(fresh)
    .onConflict((oc) =>
      oc
        .column("user_id")
        .doUpdateSet({
          secret_enc: fresh.secret_enc,
          created_at: now,
          last_step: null,
          attempts: 0,
          attempts_since: null,
        })
        .where("svc_totp.enabled_at", "is", null),
    )
    .returning("user_id")
    .executeTakeFirst();
  if (written === undefined) throw totpError("TOTP_ALREADY_ENABLED");
  return {
    secret: encodeBase32UpperCaseNoPadding(key),
    uri: createTOTPKeyURI(runtime.issuer, label, key, TOTP_PERIOD_SECS, TOTP_DIGITS),
  };
}

/**
 * `POST /api/auth/totp/confirm` `{code}`: checks a code of the pending
 * secret, turns TOTP on and answers 10 new backup codes (only their HMACs
 * are kept). A wrong code is 401 `INVALID_TOTP`; after `MAX_ATTEMPTS` wrong
 * codes the pending secret is burned (429 `RATE_LIMITED` until `enroll`
 * issues a new one).
 */
export async function confirm(
  runtime: TotpRuntime,
  auth: AuthContext,
  body: { code?: unknown },
  ip?: string,
): Promise<TotpEnabled> {
  const { userId, sessionId } = requireRealSession(auth);
  const tables = totpTablesOf(runtime);
  const row = await readTotp(tables, userId);
  if (row === undefined) throw totpError("TOTP_NOT_ENROLLED");
  if (isEnabled(row)) throw totpError("TOTP_ALREADY_ENABLED");
  if (row.attempts >= MAX_ATTEMPTS) {
    throw rateLimited(1, "Too many wrong codes for this secret; start again with enroll.");
  }
  const code = typeof body.code === "string" ? body.code.trim() : "";
  if (code === "") throw new AuthError("MISSING_CODE");
  const now = runtime.now();
  const step = matchTotpStep(secretOf(runtime, row), code, { now });
  if (step === null) {
    await tables
      .updateTable("svc_totp")
      .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
      .where("user_id", "=", userId)
      .where("secret_enc", "=", row.secret_enc)
      .where("enabled_at", "is", null)
      .execute();
    throw totpError("INVALID_TOTP");
  }
  const codes = newBackupCodes();
  await runtime.database.db.transaction().execute(async (trx) => {
    const inTrx = totpTablesOf(runtime, trx);
    const enabled = await inTrx
      .updateTable("svc_totp")
      .set({ enabled_at: now, last_step: step, attempts: 0, attempts_since: null })
      .where("user_id", "=", userId)
      .where("secret_enc", "=", row.secret_enc)
      .where("enabled_at", "is", null)
      .where("attempts", "<", MAX_ATTEMPTS)
      .executeTakeFirst();
    // Re-enrolled, confirmed or burned since the read.
    if (Number(enabled.numUpdatedRows) !== 1) throw totpError("INVALID_TOTP");
    // The session was revoked while this request ran (after the secret's
    // row, the order in which removing a second factor takes them).
    const live = await lockLiveSession(sessionTablesOf(runtime, trx), {
      id: sessionId,
      now,
      dialect: runtime.database.dialect,
    });
    if (!live) throw new AuthError("INVALID_TOKEN");
    await replaceBackupCodes(runtime, inTrx, userId, codes);
    await recordTotpAudit(runtime, { userId, kind: "TotpEnable", ip, db: trx });
  });
  return { enabled: true, backup_codes: codes };
}

async function replaceBackupCodes(
  runtime: TotpRuntime,
  db: Kysely<TotpTables>,
  userId: string,
  codes: readonly string[],
): Promise<void> {
  await db.deleteFrom("svc_backup_codes").where("user_id", "=", userId).execute();
  await db
    .insertInto("svc_backup_codes")
    .values(
      codes.map((code) => ({
        id: newRowId(),
        user_id: userId,
        code_hash: backupCodeHash(runtime, userId, normalizeBackupCode(code) ?? code),
        used_at: null,
      })),
    )
    .execute();
}

/**
 * Counts a wrong code against an enabled secret: `MAX_ATTEMPTS` within
 * `WRONG_CODE_WINDOW_MS` of the first one lock `disable` until the window ends.
 */
async function countWrongCode(db: Kysely<TotpTables>, userId: string, now: number): Promise<void> {
  await db
    .updateTable("svc_totp")
    .set({ attempts: 0, attempts_since: null })
    .where("user_id", "=", userId)
    .where("attempts_since", "<=", now - WRONG_CODE_WINDOW_MS)
    .execute();
  await db
    .updateTable("svc_totp")
    .set((eb) => ({
      attempts: eb("attempts", "+", 1),
      attempts_since: eb.fn.coalesce("attempts_since", eb.val(now)),
    }))
    .where("user_id", "=", userId)
    .execute();
}

/**
 * `POST /api/auth/totp/disable` `{code}` (an authenticator code or an unused
 * backup code, also accepted as `backup_code`): turns TOTP off and removes
 * the secret, the backup codes, open challenges and the user's trusted
 * devices. A wrong code is 401 `INVALID_TOTP`; `MAX_ATTEMPTS` wrong codes
 * within 15 minutes are 429 `RATE_LIMITED` until the 15 minutes are over.
 */
export async function disable(
  runtime: TotpRuntime,
  auth: AuthContext,
  body: { code?: unknown; backup_code?: unknown },
  ip?: string,
): Promise<{ disabled: true }> {
  const { userId } = requireRealSession(auth);
  const tables = totpTablesOf(runtime);
  const row = await readTotp(tables, userId);
  if (!isEnabled(row)) throw totpError("TOTP_NOT_ENROLLED");
  const now = runtime.now();
  const windowEnds = (row.attempts_since ?? now) + WRONG_CODE_WINDOW_MS;
  if (row.attempts >= MAX_ATTEMPTS && windowEnds > now) {
    throw rateLimited((windowEnds - now) / 1000, "Too many wrong codes; try again later.");
  }
  const factor = readFactor(body);
  const disabled = await runtime.database.db.transaction().execute(async (trx) => {
    if (!(await spendFactor(runtime, totpTablesOf(runtime, trx), { row, factor, now }))) {
      return false;
    }
    const removed = await deleteTotpForUser(runtime, trx, userId);
    await recordTotpAudit(runtime, {
      userId,
      kind: "TotpDisable",
      data: { method: factor.method, trusted_devices: removed.trustedDevices },
      ip,
      db: trx,
    });
    return true;
  });
  if (!disabled) {
    await countWrongCode(tables, userId, now);
    throw totpError("INVALID_TOTP");
  }
  return { disabled: true };
}

/** What `deleteTotpForUser` removed. */
export interface TotpRemoved {
  readonly secret: boolean;
  readonly backupCodes: number;
  readonly trustedDevices: number;
}

/**
 * Removes every trace of a user's second factor through `db` (a
 * transaction): the secret, backup codes, open challenges and trusted
 * devices. `disable` uses it; account deletion should too.
 */
export async function deleteTotpForUser(
  runtime: TotpRuntime,
  db: Parameters<typeof totpTablesOf>[1],
  userId: string,
): Promise<TotpRemoved> {
  const tables = totpTablesOf(runtime, db);
  const secret = await tables
    .deleteFrom("svc_totp")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  const codes = await tables
    .deleteFrom("svc_backup_codes")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  await tables.deleteFrom("svc_totp_challenges").where("user_id", "=", userId).execute();
  const trustedDevices = await deleteTrustedDevices(sessionTablesOf(runtime, db), userId);
  return {
    secret: Number(secret.numDeletedRows) > 0,
    backupCodes: Number(codes.numDeletedRows),
    trustedDevices,
  };
}

/** `GET /api/auth/totp`: whether TOTP is on and how many backup codes are unused. */
export async function status(runtime: TotpRuntime, auth: AuthContext): Promise<TotpStatus> {
  const { userId } = requireRealSession(auth);
  const tables = totpTablesOf(runtime);
  if (!isEnabled(await readTotp(tables, userId))) return { enabled: false, backup_codes_left: 0 };
  const left = await tables
    .selectFrom("svc_backup_codes")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where("user_id", "=", userId)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return { enabled: true, backup_codes_left: Number(left?.count ?? 0) };
}
