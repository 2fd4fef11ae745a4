import { timingSafeEqual } from "node:crypto";
import type { Auth } from "@svc/auth-core";
import { AuthError } from "@svc/auth-core";
import { type AuthContext, adminAuth, anonymousAuth } from "@svc/schema";

/** Resolves one bearer token to its caller, or null when it is not this resolver's kind. */
type Resolver = (token: string) => AuthContext | null | Promise<AuthContext | null>;

/**
 * The caller of a request by its `Authorization: Bearer` header, in the
 * spec's order: the admin token (constant-time compare), a `pk.` API key, a
 * JWT, a `svc_` session. No header: the anonymous caller. The edge reads no
 * session cookie: browsers send the token as a bearer.
 */
export function createCallerResolver(
  auth: Auth,
  adminToken: string,
): (request: Request) => Promise<AuthContext> {
  const expected = new TextEncoder().encode(adminToken);
  const resolvers: Resolver[] = [
    (token) => {
      const presented = new TextEncoder().encode(token);
      return presented.length === expected.length && timingSafeEqual(presented, expected)
        ? adminAuth
        : null;
    },
    (token) => (token.startsWith("pk.") ? auth.resolveApiKey(token) : null),
    ...auth.jwtResolvers(),
    async (token) => {
      if (!token.startsWith("svc_")) return null;
      const caller = await auth.resolveSession(token);
      if (caller === null) {
        throw new AuthError("INVALID_TOKEN", {
          message: "The session is unknown, expired or revoked.",
        });
      }
      return caller;
    },
  ];
  return async (request) => {
    const header = request.headers.get("authorization");
    if (header === null || header === "") return anonymousAuth;
    const token = /^Bearer +(\S+) *$/i.exec(header)?.[1];
    if (token === undefined) {
      throw new AuthError("INVALID_TOKEN", {
        message: "The Authorization header must be `Bearer <token>`.",
      });
    }
    for (const resolve of resolvers) {
      const caller = await resolve(token);
      if (caller !== null) return caller;
    }
    throw new AuthError("INVALID_TOKEN");
  };
}
