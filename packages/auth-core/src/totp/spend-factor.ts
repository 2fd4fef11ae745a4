import type { Kysely } from "kysely";
import { AuthError } from "../errors.js";
import { normalizeBackupCode } from "./backup-codes.js";
import { isTotpShaped, matchTotpStep } from "./totp-code.js";
import { backupCodeHash, secretOf, type TotpRuntime } from "./totp-runtime.js";
import type { TotpTable, TotpTables } from "./totp-tables.js";

/** A second factor as presented: an authenticator code or a backup code. */
export type Factor =
  | { readonly method: "totp"; readonly code: string }
  | { readonly method: "backup_code"; readonly code: string };

/**
 * Reads the factor of a request body: `backup_code`, or `code` (six digits
 * are an authenticator code, anything else is taken as a backup code).
 * Neither present is 400 `MISSING_CODE`.
 */
export function readFactor(body: { code?: unknown; backup_code?: unknown }): Factor {
  const text = (value: unknown): string => (typeof value === "string" ? value.trim() : "");
  const backup = text(body.backup_code);
  if (backup !== "") return { method: "backup_code", code: backup };
  const code = text(body.code);
  if (code === "") throw new AuthError("MISSING_CODE");
  return isTotpShaped(code) ? { method: "totp", code } : { method: "backup_code", code };
}

/**
 * Checks and spends a factor for the user of `row` (an enabled secret): an
 * authenticator code must match a step within the window that is later
 * than the last accepted one, and that step becomes the last accepted one
 * (so the same code never works twice); a backup code must be one of the
 * user's unused ones, and is marked used. Both are conditional updates, so
 * two concurrent requests cannot spend the same factor. Resolves with
 * whether the factor was right.
 */
export async function spendFactor(
  runtime: TotpRuntime,
  db: Kysely<TotpTables>,
  input: { row: TotpTable; factor: Factor; now: number },
): Promise<boolean> {
  const { row, factor, now } = input;
  if (factor.method === "backup_code") {
    const normalized = normalizeBackupCode(factor.code);
    if (normalized === null) return false;
    const result = await db
      .updateTable("svc_backup_codes")
      .set({ used_at: now })
      .where("user_id", "=", row.user_id)
      .where("code_hash", "=", backupCodeHash(runtime, row.user_id, normalized))
      .where("used_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
  const step = matchTotpStep(secretOf(runtime, row), factor.code, { now, after: row.last_step });
  if (step === null) return false;
  const claimed = await db
    .updateTable("svc_totp")
    .set({ last_step: step })
    .where("user_id", "=", row.user_id)
    .where("secret_enc", "=", row.secret_enc)
    .where((eb) => eb.or([eb("last_step", "is", null), eb("last_step", "<", step)]))
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}
