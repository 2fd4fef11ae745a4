import {
  type AuthRuntime,
  codeHash,
  completeSignIn,
  deliverEmail,
  issueAndDeliver,
  type SignInResult,
  tablesOf,
} from "../auth-runtime.js";
import { type CodePurpose, consumeCode } from "../code-store.js";
import { AuthError, rateLimited } from "../errors.js";
import { normalizeEmail, readCode } from "../normalize.js";
import { magicCodeEmail } from "../outbound.js";
import { newSixDigitCode } from "../secrets.js";
import type { ClientInfo } from "../session-store.js";
import { isoSeconds } from "../user-entity.js";
import { proveAddress } from "./address-proof.js";

/** The answer of a code send; `dev_code` only in dev mode for a loopback caller. */
export interface CodeSent {
  readonly sent: true;
  readonly email: string;
  readonly dev_code?: string;
}

/**
 * Issues a fresh code for `(purpose, email)` and emails it (see
 * `issueAndDeliver` for the cooldown and the failed-send rollback).
 */
export async function sendEmailCode(
  runtime: AuthRuntime,
  input: {
    purpose: Extract<CodePurpose, "magic" | "verify">;
    email: string;
    content: (code: string) => { subject: string; body: string };
    exposeDevCode: boolean;
  },
): Promise<CodeSent> {
  const code = newSixDigitCode();
  await issueAndDeliver(runtime, {
    purpose: input.purpose,
    subject: input.email,
    secret: code,
    deliver: () => deliverEmail(runtime, input.email, input.content(code)),
    cooldownMessage: "A code was sent to this address less than a minute ago.",
  });
  return {
    sent: true,
    email: input.email,
    ...(runtime.devMode && input.exposeDevCode && { dev_code: code }),
  };
}

/** Checks a code, turning the outcome into the spec's errors: 401/4xx `INVALID_CODE`, 429 once burned. */
export async function checkEmailCode(
  runtime: AuthRuntime,
  input: { purpose: CodePurpose; subject: string; code: string; invalidStatus?: number },
): Promise<void> {
  const result = await consumeCode(tablesOf(runtime), {
    purpose: input.purpose,
    subject: input.subject,
    candidateHash: codeHash(runtime, input.purpose, input.subject, input.code),
    now: runtime.now(),
  });
  if (result.outcome === "accepted") return;
  if (result.outcome === "burned") {
    throw rateLimited(
      result.retryAfterMs / 1000,
      "Too many wrong codes; this code no longer works. Request a new one.",
    );
  }
  throw new AuthError(
    "INVALID_CODE",
    input.invalidStatus === undefined ? {} : { status: input.invalidStatus },
  );
}

/** `POST /api/auth/magic/send`. */
export async function sendMagicCode(
  runtime: AuthRuntime,
  body: { email?: unknown },
  options: { exposeDevCode: boolean; subject?: string | undefined },
): Promise<CodeSent> {
  const email = normalizeEmail(body.email);
  runtime.users.require();
  return sendEmailCode(runtime, {
    purpose: "magic",
    email,
    content: (code) =>
      magicCodeEmail(code, options.subject === undefined ? {} : { subject: options.subject }),
    exposeDevCode: options.exposeDevCode,
  });
}

/**
 * `POST /api/auth/magic/verify`: consumes the code, creates the `User` row
 * with `emailVerified` stamped when absent (or proves the address of an
 * existing one, `proveAddress`: an unverified account with a password loses
 * the credentials made before), and signs in.
 */
export async function verifyMagicCode(
  runtime: AuthRuntime,
  body: { email?: unknown; code?: unknown },
  client: ClientInfo,
): Promise<SignInResult> {
  const email = normalizeEmail(body.email);
  const code = readCode(body.code);
  runtime.users.require();
  await checkEmailCode(runtime, { purpose: "magic", subject: email, code });
  const user = await runtime.users.findOrCreate("email", email, {
    verifiedAt: isoSeconds(runtime.now()),
  });
  await proveAddress(runtime, user, { method: "magic-code", ip: client.ip });
  return completeSignIn(runtime, { userId: user.id, method: "magic-code", client });
}
