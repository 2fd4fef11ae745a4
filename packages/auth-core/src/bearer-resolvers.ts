import { timingSafeEqual } from "node:crypto";
import { adminAuth } from "@svc/schema";
import type { CallerResolution, CallerResolver } from "@svc/schema/http";
import type { Auth } from "./auth.js";
import { AuthError } from "./errors.js";

// The bearer resolvers need no HTTP framework: the express gate
// (`authenticate`) and hosts of their own (the edge worker) share them.

/**
 * Turns a bearer token into a caller: @svc/schema's `CallerResolver`, the
 * one resolver shape the HTTP gate and the live transports share. Returns
 * null when the token is not of this resolver's kind, so the next one is
 * tried; throws an `AuthError` (or any wire error) when it is of its kind
 * but invalid, so a bad API key or JWT is reported as such and never falls
 * through to `INVALID_TOKEN`.
 */
export type BearerResolver = CallerResolver;

/**
 * The marks of the other bearer kinds: a session's `svc_`, an API key's
 * `pk.`, a JWT's dots. A presented token with a mark the admin token lacks
 * cannot be it.
 */
const OTHER_KINDS: readonly ((token: string) => boolean)[] = [
  (token) => token.startsWith("svc_"),
  (token) => token.startsWith("pk."),
  (token) => token.includes("."),
];

/**
 * Matches the admin token in constant time: the bytes are compared with
 * `timingSafeEqual`, which takes as long for every token of the admin
 * token's length; a token of another length is refused at once, which
 * reveals the length only (like `hmac.compare_digest` and its kin), and
 * the documented admin token's length (128+ hex characters) is no secret.
 * Tokens that carry another kind's mark which the admin token lacks are
 * passed on without a comparison; that reveals only that the admin token
 * lacks the mark, which its documented form (hex) says anyway.
 */
export function adminTokenResolver(adminToken: string): BearerResolver {
  const expected = Buffer.from(adminToken, "utf8");
  const ruledOut = OTHER_KINDS.filter((hasMark) => !hasMark(adminToken));
  return (token) => {
    for (const hasMark of ruledOut) if (hasMark(token)) return null;
    const presented = Buffer.from(token, "utf8");
    return presented.length === expected.length && timingSafeEqual(presented, expected)
      ? adminAuth
      : null;
  };
}

/** Resolves `svc_` session tokens; an unknown, revoked or expired one is 401 `INVALID_TOKEN`. */
export function sessionResolver(auth: Pick<Auth, "resolveSession">): BearerResolver {
  return async (token) => {
    if (!token.startsWith("svc_")) return null;
    const caller = await auth.resolveSession(token);
    if (caller === null) {
      throw new AuthError("INVALID_TOKEN", {
        message: "The session is unknown, expired or revoked.",
      });
    }
    return caller;
  };
}

/** Resolves `pk.` API keys; a bad one is 401 `INVALID_API_KEY` at once, never a fall-through. */
export function apiKeyResolver(auth: Pick<Auth, "resolveApiKey">): BearerResolver {
  // Any other token is passed on at once, without a promise to wait for.
  return (token) => (token.startsWith("pk.") ? auth.resolveApiKey(token) : null);
}

/**
 * Every bearer kind auth-core knows, in the spec's order: the admin token
 * (when there is one), a `pk.` API key, the JWTs `auth` was configured
 * with, a `svc_` session.
 *
 * @example
 * app.use(authenticate({ resolvers: bearerResolvers(auth, adminToken) }));
 */
export function bearerResolvers(
  auth: Pick<Auth, "resolveSession" | "resolveApiKey" | "jwtResolvers">,
  adminToken?: string,
): BearerResolver[] {
  return [
    ...(adminToken === undefined ? [] : [adminTokenResolver(adminToken)]),
    apiKeyResolver(auth),
    ...auth.jwtResolvers(),
    sessionResolver(auth),
  ];
}

/**
 * The 401 `INVALID_TOKEN` for a bearer that cannot be a caller:
 * `malformed`, an `Authorization` header that is not `Bearer <token>`;
 * `rejected`, a token no resolver accepted (@svc/schema's `resolveCaller`).
 */
export function invalidBearerError(
  status: Extract<CallerResolution["status"], "malformed" | "rejected">,
): AuthError {
  return status === "malformed"
    ? new AuthError("INVALID_TOKEN", {
        message: "The Authorization header must be `Bearer <token>`.",
      })
    : new AuthError("INVALID_TOKEN");
}
