import type { AuthContext } from "@svc/schema";
import { recordAudit } from "../audit.js";
import { type AuthRuntime, accountTablesOf } from "../auth-runtime.js";
import { AuthError } from "../errors.js";
import { readCode } from "../normalize.js";
import { verificationEmail } from "../outbound.js";
import { isoSeconds } from "../user-entity.js";
import { type CodeSent, checkEmailCode, sendEmailCode } from "./magic-code.js";

async function sessionUser(runtime: AuthRuntime, auth: AuthContext) {
  // A session (a guest's included) only: an API key or a JWT is not one.
  if (auth.userId === null || (auth.via !== "session" && auth.via !== "guest")) {
    throw new AuthError("UNAUTHORIZED");
  }
  runtime.users.require();
  const user = await runtime.users.get(auth.userId);
  if (user === null) throw new AuthError("USER_NOT_FOUND");
  const email = typeof user.email === "string" && user.email !== "" ? user.email : undefined;
  return { user, email };
}

/** `POST /api/auth/email/send-verification`: emails a code to the caller's `User.email`. */
export async function sendVerification(
  runtime: AuthRuntime,
  auth: AuthContext,
  options: { exposeDevCode: boolean },
): Promise<CodeSent> {
  const { email } = await sessionUser(runtime, auth);
  if (email === undefined) {
    throw new AuthError("MISSING_EMAIL", { message: "The signed-in user has no email address." });
  }
  return sendEmailCode(runtime, {
    purpose: "verify",
    email,
    content: verificationEmail,
    exposeDevCode: options.exposeDevCode,
  });
}

/**
 * `POST /api/auth/email/verify`: checks the code and stamps
 * `User.emailVerified`. Unlike a sign-in that proves the address
 * (flows/address-proof.ts), this keeps the password, the sessions and the
 * API keys: the caller holds a session of this very account and received
 * the code, so whoever made those credentials and the address's owner are
 * the same person (the normal path: register, then verify).
 */
export async function verifyEmail(
  runtime: AuthRuntime,
  auth: AuthContext,
  body: { code?: unknown },
): Promise<{ verified: true; emailVerified: string }> {
  const { user, email } = await sessionUser(runtime, auth);
  const code = readCode(body.code);
  // Refuse before the code is spent: the app must declare the field first.
  if (!runtime.users.require().hasEmailVerified) throw new AuthError("PERSIST_FAILED");
  // The caller's session is fine, only the code is wrong: 400, not a 401
  // that a client could read as "signed out".
  if (email === undefined) throw new AuthError("INVALID_CODE", { status: 400 });
  await checkEmailCode(runtime, { purpose: "verify", subject: email, code, invalidStatus: 400 });
  const emailVerified = isoSeconds(runtime.now());
  await runtime.users.stampEmailVerified(user.id, emailVerified);
  await recordAudit(accountTablesOf(runtime), {
    userId: user.id,
    kind: "EmailVerify",
    at: runtime.now(),
    data: { email },
  });
  return { verified: true, emailVerified };
}
