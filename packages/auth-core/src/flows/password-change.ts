import type { AuthContext } from "@svc/schema";
import { dialectFor } from "@svc/store";
import { recordAudit } from "../audit.js";
import { type AuthRuntime, accountTablesOf, tablesOf } from "../auth-runtime.js";
import { AuthError } from "../errors.js";
import { hashPassword, MAX_PASSWORD_LENGTH, verifyPassword } from "../password-hash.js";
import { requireRealSession } from "../real-session.js";
import { lockLiveSession } from "../session-store.js";
import { readPassword } from "./password.js";

/** What `POST /api/auth/password/change` answers. */
export interface PasswordChanged {
  readonly changed: true;
  /** How many other sessions of the user were revoked. */
  readonly revoked_sessions: number;
}

// The session is fine when only the current password is wrong: 400, not a
// 401 a client could read as "signed out" (as on `email/verify`).
const wrongPassword = (): AuthError =>
  new AuthError("INVALID_CREDENTIALS", { status: 400, message: "The current password is wrong." });

/**
 * `POST /api/auth/password/change` `{currentPassword, newPassword}` (real
 * session only). Checks the current password with argon2 (`400
 * INVALID_CREDENTIALS` when wrong), the new one by the registration rules,
 * then in one transaction stores the new hash, revokes every other session
 * of the user (this one stays) and writes a `PasswordChange` audit event.
 * API keys, the second factor and trusted devices stay. An account without
 * a password (code, link or provider sign-in only) is `400
 * PASSWORD_NOT_SET`: a session alone never adds a password (a stolen one
 * could plant it); a password reset by emailed code sets the first one.
 */
export async function changePassword(
  runtime: AuthRuntime,
  auth: AuthContext,
  body: { currentPassword?: unknown; newPassword?: unknown },
  ip: string | undefined,
): Promise<PasswordChanged> {
  const { userId, sessionId } = requireRealSession(auth);
  const current = body.currentPassword;
  if (current === undefined || current === null || current === "") {
    throw new AuthError("MISSING_PASSWORD", { message: "The current password is required." });
  }
  const password = readPassword(body.newPassword);
  runtime.users.require();
  const stored = await accountTablesOf(runtime)
    .selectFrom("svc_passwords")
    .select("hash")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (stored === undefined) throw new AuthError("PASSWORD_NOT_SET");
  const candidate = typeof current === "string" ? current : "";
  if (
    candidate === "" ||
    [...candidate].length > MAX_PASSWORD_LENGTH ||
    !(await verifyPassword(stored.hash, candidate))
  ) {
    throw wrongPassword();
  }
  const hash = await hashPassword(password);
  const revoked = await runtime.database.db.transaction().execute(async (trx) => {
    // The password row first, then the session: the order a reset or a
    // claim takes them in, so the two never wait on each other.
    const accounts = accountTablesOf(runtime, trx);
    const select = accounts
      .selectFrom("svc_passwords")
      .select("hash")
      .where("user_id", "=", userId);
    const row = await dialectFor(runtime.database.dialect).lockForUpdate(select).executeTakeFirst();
    // Reset, changed or removed (a claim) while argon2 ran.
    if (row?.hash !== stored.hash) throw wrongPassword();
    const sessions = tablesOf(runtime, trx);
    const live = await lockLiveSession(sessions, {
      id: sessionId,
      now: runtime.now(),
      dialect: runtime.database.dialect,
    });
    if (!live) throw new AuthError("INVALID_TOKEN");
    const now = runtime.now();
    await accounts
      .updateTable("svc_passwords")
      .set({ hash, updated_at: now })
      .where("user_id", "=", userId)
      .execute();
    const deleted = await sessions
      .deleteFrom("svc_sessions")
      .where("user_id", "=", userId)
      .where("id", "!=", sessionId)
      .executeTakeFirst();
    const count = Number(deleted.numDeletedRows);
    await recordAudit(accounts, {
      userId,
      kind: "PasswordChange",
      at: now,
      data: { sessions: count, session_id: sessionId },
      ip,
    });
    return count;
  });
  await runtime.credentials.forgetUser(userId, "password-changed");
  return { changed: true, revoked_sessions: revoked };
}
