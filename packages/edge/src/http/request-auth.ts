import type { Auth } from "@svc/auth-core";
import { bearerResolvers, invalidBearerError } from "@svc/auth-core";
import { type AuthContext, anonymousAuth } from "@svc/schema";
import { resolveCaller } from "@svc/schema/http";

/**
 * The caller of a request by its `Authorization: Bearer` header, through
 * auth-core's resolvers in the spec's order: the admin token (constant-time
 * compare), a `pk.` API key, a JWT, a `svc_` session. No header: the
 * anonymous caller. The edge reads no session cookie: browsers send the
 * token as a bearer.
 */
export function createCallerResolver(
  auth: Auth,
  adminToken: string,
): (request: Request) => Promise<AuthContext> {
  const resolvers = bearerResolvers(auth, adminToken);
  return async (request) => {
    const authorization = request.headers.get("authorization") ?? undefined;
    const found = await resolveCaller({ headers: { authorization } }, { resolvers });
    switch (found.status) {
      case "bearer":
      case "cookie": // never here: no cookie is passed
        return found.caller;
      case "anonymous":
        return anonymousAuth;
      case "malformed":
      case "rejected":
        throw invalidBearerError(found.status);
    }
  };
}
