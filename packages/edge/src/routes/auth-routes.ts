import type { Auth } from "@svc/auth-core";
import { AuthError } from "@svc/auth-core";
import type { AuthContext } from "@svc/schema";
import { jsonResponse } from "../http/responses.js";

/** What an auth route gets: the parsed body, the caller and the client's address. */
export interface AuthRouteInput {
  readonly request: Request;
  readonly url: URL;
  readonly caller: () => Promise<AuthContext>;
  readonly body: () => Promise<Record<string, unknown>>;
}

type AuthRoute = (input: AuthRouteInput) => Promise<unknown>;

function clientOf(request: Request): { ip?: string; userAgent?: string } {
  const ip = request.headers.get("cf-connecting-ip") ?? undefined;
  const userAgent = request.headers.get("user-agent") ?? undefined;
  return { ...(ip !== undefined && { ip }), ...(userAgent !== undefined && { userAgent }) };
}

/**
 * The sign-in routes the edge serves, each one call of auth-core's
 * framework-free `Auth`: guest, magic code, password, email verification,
 * me, sign-out, sessions, API keys, JWT, account deletion. `exposeDevCode`
 * follows dev mode alone (a Worker has no loopback caller to tell apart):
 * never set `SVC_DEV_MODE` on a deployed Worker.
 */
export function createAuthRoutes(
  auth: Auth,
): (method: string, path: string) => AuthRoute | undefined {
  const devCode = { exposeDevCode: auth.devMode };
  const ipOf = (request: Request) => clientOf(request).ip;
  const routes = new Map<string, AuthRoute>([
    ["POST /api/auth/guest", ({ request }) => auth.createGuest(clientOf(request))],
    ["POST /api/auth/magic/send", async ({ body }) => auth.sendMagicCode(await body(), devCode)],
    [
      "POST /api/auth/magic/verify",
      async ({ body, request }) => auth.verifyMagicCode(await body(), clientOf(request)),
    ],
    [
      "POST /api/auth/password/register",
      async ({ body, request }) => auth.registerPassword(await body(), clientOf(request)),
    ],
    [
      "POST /api/auth/password/login",
      async ({ body, request }) => auth.loginPassword(await body(), clientOf(request)),
    ],
    [
      "POST /api/auth/password/change",
      async ({ body, caller, request }) =>
        auth.changePassword(await caller(), await body(), ipOf(request)),
    ],
    [
      "POST /api/auth/email/send-verification",
      async ({ caller }) => auth.sendVerification(await caller(), devCode),
    ],
    [
      "POST /api/auth/email/verify",
      async ({ caller, body }) => auth.verifyEmail(await caller(), await body()),
    ],
    ["GET /api/auth/me", async ({ caller }) => auth.me(await caller())],
    ["GET /api/auth/sessions", async ({ caller }) => auth.listSessions(await caller())],
    ["DELETE /api/auth/session", async ({ caller }) => auth.revokeSession(await caller())],
    ["DELETE /api/auth/sessions", async ({ caller }) => auth.revokeAllSessions(await caller())],
    [
      "POST /api/auth/api-keys",
      async ({ caller, body, request }) =>
        auth.createApiKey(await caller(), await body(), ipOf(request)),
    ],
    ["GET /api/auth/api-keys", async ({ caller }) => auth.listApiKeys(await caller())],
    [
      "POST /api/auth/jwt",
      async ({ caller, request }) => auth.mintJWT(await caller(), ipOf(request)),
    ],
    [
      "DELETE /api/auth/account",
      async ({ caller, request }) => auth.deleteAccount(await caller(), ipOf(request)),
    ],
  ]);
  return (method, path) => {
    const exact = routes.get(`${method} ${path}`);
    if (exact !== undefined) return exact;
    const keyId = /^\/api\/auth\/api-keys\/([^/]+)$/.exec(path)?.[1];
    if (method === "DELETE" && keyId !== undefined) {
      return async ({ caller, request }) =>
        auth.revokeApiKey(await caller(), decodeURIComponent(keyId), ipOf(request));
    }
    return undefined;
  };
}

/** Runs an auth route and answers its JSON (auth-core's errors pass to the error handler). */
export async function runAuthRoute(route: AuthRoute, input: AuthRouteInput): Promise<Response> {
  return jsonResponse(await route(input));
}

export { AuthError };
