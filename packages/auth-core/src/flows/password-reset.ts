import { adminAuth, dialectFor } from "@svc/store";
import { recordAudit } from "../audit.js";
import {
  type AuthRuntime,
  accountTablesOf,
  codeHash,
  completeSignIn,
  deliverEmail,
  issueAndDeliver,
  type SignInResult,
  tablesOf,
} from "../auth-runtime.js";
import { type ConsumeResult, consumeCode } from "../code-store.js";
import { AuthError, rateLimited } from "../errors.js";
import { normalizeEmail, readCode } from "../normalize.js";
import { passwordResetEmail } from "../outbound.js";
import { hashPassword } from "../password-hash.js";
import { newSixDigitCode } from "../secrets.js";
import { type ClientInfo, deleteUserSessions } from "../session-store.js";
import { proveAddressIn } from "./address-proof.js";
import type { CodeSent } from "./magic-code.js";
import { readPassword } from "./password.js";

// Password reset by emailed code. The send must not tell whether an
// account exists, so it answers every well-formed address alike:
//
// - a code is issued (and the 60-second cooldown taken) for every address,
//   but emailed only when a `User` has that address (with a password or
//   without one: a reset is also how an account made by code, link or
//   provider gets its first password, the address being proven by the
//   code). The code issued for any other address is never sent anywhere,
//   so nobody knows it; a second send within the minute is `429
//   RATE_LIMITED` for every address, not only for real accounts.
// - `dev_code` is added only when a code was really emailed (dev mode and a
//   loopback caller only, like the magic code).
// - With no email transport at all the send fails for every address.
//
// What still differs is the email provider's round trip (the answer for an
// address that gets an email takes that much longer) and a failing
// provider (`500 EMAIL_SEND_FAILED` only where something was to be sent).

/** Whether `email` names a `User` (the only accounts a reset code is emailed to). */
async function hasAccount(runtime: AuthRuntime, email: string): Promise<boolean> {
  return (await runtime.users.findByField("email", email)) !== null;
}

/**
 * `POST /api/auth/password/reset/send`: emails a 6-digit reset code when
 * a user has the address, and answers `{sent: true, email}`
 * whether or not it has (see the top of this file). Same lifetime,
 * cooldown and attempt cap as a magic code.
 */
export async function sendPasswordReset(
  runtime: AuthRuntime,
  body: { email?: unknown },
  options: { exposeDevCode: boolean },
): Promise<CodeSent> {
  const email = normalizeEmail(body.email);
  runtime.users.require();
  if (runtime.email.transport === undefined && runtime.devInbox === undefined) {
    throw new AuthError("EMAIL_SEND_FAILED", {
      cause: new Error("no email transport is configured (SVC_EMAIL_PROVIDER)"),
    });
  }
  const eligible = await hasAccount(runtime, email);
  const code = newSixDigitCode();
  await issueAndDeliver(runtime, {
    purpose: "reset",
    subject: email,
    secret: code,
    deliver: async () => {
      if (eligible) await deliverEmail(runtime, email, passwordResetEmail(code));
    },
    cooldownMessage: "A password reset was requested for this address less than a minute ago.",
  });
  return {
    sent: true,
    email,
    ...(runtime.devMode && options.exposeDevCode && eligible && { dev_code: code }),
  };
}

type ResetOutcome =
  | Exclude<ConsumeResult, { outcome: "accepted" }>
  | { outcome: "reset"; userId: string };

/**
 * `POST /api/auth/password/reset`: checks the reset code and sets the new
 * password, then signs in (or answers the second-factor challenge, like a
 * login). In one transaction: the code is spent, the hash replaced, every
 * session of the user revoked and a `PasswordReset` audit event written.
 * On an account whose address was not verified the code is the proof of
 * the address: `proveAddressIn` stamps `emailVerified` and, as for a magic
 * code, removes the credentials made before (the old password, sessions,
 * API keys, second factor, `User.phone`; an `AccountClaim` event) before
 * the new password is stored. A verified account keeps its API keys,
 * second factor and trusted devices. An account without a password gets
 * its first one this way.
 *
 * The new password is checked (`MISSING_PASSWORD`, `INVALID_PASSWORD`)
 * before the code, so a rejected password spends no attempt. A wrong,
 * expired or used code and an address without an account all answer
 * `401 INVALID_CODE`; five wrong codes burn
 * it (`429 RATE_LIMITED`).
 */
export async function resetPassword(
  runtime: AuthRuntime,
  body: { email?: unknown; code?: unknown; password?: unknown },
  client: ClientInfo,
): Promise<SignInResult> {
  const email = normalizeEmail(body.email);
  const code = readCode(body.code);
  const password = readPassword(body.password);
  runtime.users.require();
  // argon2 runs before the transaction: it takes tens of milliseconds.
  const hash = await hashPassword(password);
  const result = await runtime.store.frameworkTransaction(
    adminAuth,
    async (tx): Promise<ResetOutcome> => {
      // A wrong guess commits its attempt; everything below commits with
      // the code's consumption or not at all.
      const checked = await consumeCode(tablesOf(runtime, tx.db), {
        purpose: "reset",
        subject: email,
        candidateHash: codeHash(runtime, "reset", email, code),
        now: runtime.now(),
      });
      if (checked.outcome !== "accepted") return checked;
      const user = (await tx.entities.query("User", { where: { email }, limit: 1 })).rows[0];
      // No account has the address (or it went away since the code was sent).
      if (user === undefined) return { outcome: "invalid" };
      const accounts = accountTablesOf(runtime, tx.db);
      const select = accounts
        .selectFrom("svc_passwords")
        .select("hash")
        .where("user_id", "=", user.id);
      const stored = await dialectFor(runtime.database.dialect)
        .lockForUpdate(select)
        .executeTakeFirst();
      const now = runtime.now();
      const claimed = await proveAddressIn(runtime, tx, user.id, {
        method: "password-reset",
        ip: client.ip,
      });
      let sessions: number;
      if (claimed === null && stored !== undefined) {
        await accounts
          .updateTable("svc_passwords")
          .set({ hash, updated_at: now })
          .where("user_id", "=", user.id)
          .execute();
      } else {
        // A first password, or the claim removed the old one with the rest.
        await accounts
          .insertInto("svc_passwords")
          .values({ user_id: user.id, hash, updated_at: now })
          .execute();
      }
      if (claimed === null) {
        sessions = await deleteUserSessions(tablesOf(runtime, tx.db), user.id);
      } else {
        sessions = claimed.sessions;
      }
      await recordAudit(accounts, {
        userId: user.id,
        kind: "PasswordReset",
        at: now,
        data: { sessions, claimed: claimed !== null, first_password: stored === undefined },
        ip: client.ip,
      });
      return { outcome: "reset", userId: user.id };
    },
  );
  if (result.outcome === "burned") {
    throw rateLimited(
      result.retryAfterMs / 1000,
      "Too many wrong codes; this code no longer works. Request a new one.",
    );
  }
  if (result.outcome === "invalid") throw new AuthError("INVALID_CODE");
  await runtime.credentials.forgetUser(result.userId, "password-reset");
  return completeSignIn(runtime, { userId: result.userId, method: "password-reset", client });
}
