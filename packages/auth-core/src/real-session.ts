import type { AuthContext } from "@svc/schema";
import { AuthError } from "./errors.js";

/**
 * The caller of an endpoint that needs a real session (key management, JWT
 * mint, account deletion): an API key gets 403 `API_KEY_AUTH_FORBIDDEN`, a
 * guest 403 `GUEST_NOT_ALLOWED`, a JWT 403 `SESSION_REQUIRED`, and a caller
 * without a user (anonymous, the bare admin token) 401 `AUTH_REQUIRED`.
 */
export function requireRealSession(auth: AuthContext): { userId: string; sessionId: string } {
  if (auth.via === "api-key") throw new AuthError("API_KEY_AUTH_FORBIDDEN");
  if (auth.userId === null) throw new AuthError("AUTH_REQUIRED");
  if (auth.isGuest) throw new AuthError("GUEST_NOT_ALLOWED");
  if (auth.via !== "session" || auth.sessionId === null) throw new AuthError("SESSION_REQUIRED");
  return { userId: auth.userId, sessionId: auth.sessionId };
}
