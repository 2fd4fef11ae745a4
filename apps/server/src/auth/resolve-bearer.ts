import { createHash, timingSafeEqual } from "node:crypto";
import { type AuthContext, adminAuth, anonymousAuth } from "@svc/store";
import { ServerError } from "../errors.js";

/**
 * Turns a bearer token into a caller, or returns null when the token is not
 * of this resolver's kind. Resolvers run in the spec's order (admin token,
 * `pk.` API key, JWT, `svc_` session); later issues add the others.
 */
export type BearerResolver = (token: string) => AuthContext | null | Promise<AuthContext | null>;

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/**
 * Matches the admin token in constant time. Both sides are hashed first so
 * the comparison length never depends on the presented token.
 */
export function adminTokenResolver(adminToken: string): BearerResolver {
  const expected = digest(adminToken);
  return (token) => (timingSafeEqual(digest(token), expected) ? adminAuth : null);
}

/**
 * Resolves the `Authorization` header: no header is the anonymous caller; a
 * malformed header or a token no resolver accepts is 401 `INVALID_TOKEN`.
 */
export async function resolveAuthorization(
  header: string | undefined,
  resolvers: readonly BearerResolver[],
): Promise<AuthContext> {
  if (header === undefined || header === "") return anonymousAuth;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  const token = match?.[1];
  if (token === undefined) {
    throw new ServerError("INVALID_TOKEN", "The Authorization header must be `Bearer <token>`.");
  }
  for (const resolve of resolvers) {
    const auth = await resolve(token);
    if (auth !== null) return auth;
  }
  throw new ServerError("INVALID_TOKEN");
}
