import {
  type AuthRuntime,
  completeSignIn,
  deliverEmail,
  issueAndDeliver,
  type SignInResult,
} from "../auth-runtime.js";
import { AuthError } from "../errors.js";
import { normalizeEmail } from "../normalize.js";
import { magicLinkEmail } from "../outbound.js";
import { newLinkToken } from "../secrets.js";
import type { ClientInfo } from "../session-store.js";
import { isoSeconds } from "../user-entity.js";
import { proveAddress } from "./address-proof.js";
import { checkEmailCode } from "./magic-code.js";
import { resolveRedirect } from "./redirect-target.js";

/** Where the links point and where they may return to. */
export interface LinkTargets {
  /** The public address of the server (`SVC_PUBLIC_URL`, else the request's own). */
  readonly baseURL: string;
  readonly trustedOrigins: readonly string[];
}

/**
 * `POST /api/auth/magic-link/send` `{email, callback?}`: emails a one-time
 * link (256-bit token, 10 minutes, same cooldown and attempt cap as codes)
 * to `/api/auth/magic-link/verify`. `callback`, checked against the trusted
 * origins now and again on use, is where the browser lands signed in.
 */
export async function sendMagicLink(
  runtime: AuthRuntime,
  body: { email?: unknown; callback?: unknown },
  options: LinkTargets & { exposeDevCode: boolean },
): Promise<{ sent: true; email: string; dev_link?: string }> {
  const email = normalizeEmail(body.email);
  const callback =
    body.callback === undefined || body.callback === null
      ? undefined
      : resolveRedirect(body.callback, options);
  runtime.users.require();
  const token = newLinkToken();
  const link = new URL("/api/auth/magic-link/verify", options.baseURL);
  link.searchParams.set("email", email);
  link.searchParams.set("token", token);
  if (callback !== undefined) link.searchParams.set("callback", callback);
  await issueAndDeliver(runtime, {
    purpose: "link",
    subject: email,
    secret: token,
    deliver: () => deliverEmail(runtime, email, magicLinkEmail(link.toString())),
    cooldownMessage: "A link was sent to this address less than a minute ago.",
  });
  return {
    sent: true,
    email,
    ...(runtime.devMode && options.exposeDevCode && { dev_link: link.toString() }),
  };
}

/**
 * `GET|POST /api/auth/magic-link/verify` `{email, token}`: consumes the link,
 * proves the address as a magic code does, and signs in.
 */
export async function verifyMagicLink(
  runtime: AuthRuntime,
  body: { email?: unknown; token?: unknown },
  client: ClientInfo,
): Promise<SignInResult> {
  const email = normalizeEmail(body.email);
  if (typeof body.token !== "string" || body.token === "" || body.token.length > 256) {
    throw new AuthError("INVALID_LINK");
  }
  runtime.users.require();
  try {
    await checkEmailCode(runtime, { purpose: "link", subject: email, code: body.token });
  } catch (error) {
    if (error instanceof AuthError && error.code === "INVALID_CODE")
      throw new AuthError("INVALID_LINK");
    throw error;
  }
  const user = await runtime.users.findOrCreate("email", email, {
    verifiedAt: isoSeconds(runtime.now()),
  });
  await proveAddress(runtime, user, { method: "magic-link", ip: client.ip });
  return completeSignIn(runtime, { userId: user.id, method: "magic-link", client });
}
