import {
  type AuthRuntime,
  completeSignIn,
  issueAndDeliver,
  type SignInResult,
} from "../auth-runtime.js";
import { AuthError } from "../errors.js";
import { normalizePhone, readCode } from "../normalize.js";
import { newSixDigitCode } from "../secrets.js";
import type { ClientInfo } from "../session-store.js";
import { checkEmailCode } from "./magic-code.js";

function requirePhoneUsers(runtime: AuthRuntime): void {
  if (!runtime.users.require().hasPhone) {
    throw new AuthError("USER_ENTITY_MISSING", {
      message: "The User entity declares no phone field, so phone sign-in is unavailable.",
    });
  }
}

/**
 * `POST /api/auth/phone/send-code` `{phone}`: texts a 6-digit code through
 * `SVC_SMS_ENDPOINT` (or the dev inbox), with the same expiry, cooldown and
 * attempt cap as email codes.
 */
export async function sendPhoneCode(
  runtime: AuthRuntime,
  body: { phone?: unknown },
  options: { exposeDevCode: boolean },
): Promise<{ sent: true; phone: string; dev_code?: string }> {
  const phone = normalizePhone(body.phone);
  requirePhoneUsers(runtime);
  const transport = runtime.sms ?? runtime.devInbox;
  if (transport === undefined) throw new AuthError("SMS_NOT_CONFIGURED");
  const code = newSixDigitCode();
  await issueAndDeliver(runtime, {
    purpose: "phone",
    subject: phone,
    secret: code,
    deliver: () =>
      transport.sendSms({
        to: phone,
        body: `Your sign-in code is ${code}. It expires in 10 minutes.`,
      }),
    cooldownMessage: "A code was sent to this number less than a minute ago.",
    failure: "SMS_SEND_FAILED",
  });
  return { sent: true, phone, ...(runtime.devMode && options.exposeDevCode && { dev_code: code }) };
}

/**
 * `POST /api/auth/phone/verify` `{phone, code}`: signs in the user with that
 * `phone`, creating one when `User.email` is optional; otherwise an unknown
 * number is 404 `USER_NOT_FOUND` (the code is spent either way).
 */
export async function verifyPhoneCode(
  runtime: AuthRuntime,
  body: { phone?: unknown; code?: unknown },
  client: ClientInfo,
): Promise<SignInResult> {
  const phone = normalizePhone(body.phone);
  const code = readCode(body.code);
  requirePhoneUsers(runtime);
  await checkEmailCode(runtime, { purpose: "phone", subject: phone, code });
  const existing = await runtime.users.findByField("phone", phone);
  const user =
    existing ??
    (runtime.users.require().emailOptional
      ? await runtime.users.findOrCreate("phone", phone)
      : null);
  if (user === null)
    throw new AuthError("USER_NOT_FOUND", { message: "No user has this phone number." });
  return completeSignIn(runtime, { userId: user.id, method: "phone-code", client });
}
