import { errorHandler } from "@svc/schema/http";
import express, {
  type ErrorRequestHandler,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from "express";
import type { Auth } from "../auth.js";
import type { SignInResult } from "../auth-runtime.js";
import { AuthError } from "../errors.js";
import { resolveRedirect } from "../flows/redirect-target.js";
import type { ClientInfo } from "../session-store.js";
import { type CookieSettings, clearedSessionCookie, clientOf, sessionCookie } from "./cookies.js";
import { authJsonBody, bodyOf } from "./json-body.js";
import { createRateLimits, type RateLimitOptions } from "./rate-limits.js";
import { getAuth } from "./request-auth.js";
import { sessionCookieAllowed, signInGuard } from "./sign-in-guard.js";
import { registerTotpRoutes } from "./totp-routes.js";

/** Options of `createAuthRouter`. */
export interface AuthRouterOptions {
  readonly cookie: CookieSettings;
  /** Origins a magic link may send the browser back to (besides the server's own). */
  readonly trustedOrigins: readonly string[];
  /**
   * Origins a browser may sign in from (the routes that set the session
   * cookie; see `signInGuard`), besides the server's own and the origin of
   * `publicURL`; `true` trusts every origin but `null` (dev mode). Default
   * `trustedOrigins`. svc's server passes its CSRF list (`SVC_CSRF_ORIGINS`).
   */
  readonly csrfOrigins?: true | readonly string[];
  /** The server's public address (`SVC_PUBLIC_URL`) for links in emails; default the request's own. */
  readonly publicURL?: string | undefined;
  /** The sign-in rate limits; `false` turns them off (`SVC_RATE_LIMIT=off`). Default on. */
  readonly rateLimit?:
    | false
    | Pick<RateLimitOptions, "perIp" | "perAccount" | "accountLockout" | "knownAddressMs" | "now">;
  /** Largest accepted body. Default 64 KiB. */
  readonly bodyLimitBytes?: number;
  /** Overrides the magic-code email's subject (`SVC_AUTH_EMAIL_SUBJECT`). */
  readonly magicCodeSubject?: string | undefined;
}

function isLoopback(req: Request): boolean {
  // The socket's address, never a forwarded one: dev codes must not leak
  // through a proxy that happens to run on the same machine.
  const address = req.socket.remoteAddress ?? "";
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

function baseURLOf(req: Request, publicURL: string | undefined): string {
  return publicURL ?? `${req.protocol}://${req.headers.host ?? "localhost"}`;
}

/** The sign-in origins: the given list plus the public address's origin (a proxy may rewrite `Host`). */
function signInOrigins(options: AuthRouterOptions): true | readonly string[] {
  const listed = options.csrfOrigins ?? options.trustedOrigins;
  if (listed === true) return true;
  const { publicURL } = options;
  if (publicURL === undefined || !URL.canParse(publicURL)) return listed;
  return [...listed, new URL(publicURL).origin];
}

/**
 * The auth endpoints of the svc spec as one express router (paths are
 * absolute, `/api/auth/...`). It needs `authenticate` to have run (it reads
 * `getAuth(req)`); mount `errorHandler()` of `@svc/schema/http` after it
 * unless the app already has it.
 *
 * Order on the abuse-prone endpoints: JSON body, then the CAPTCHA gate
 * (before any limiter, database or email work), then the per-IP and
 * per-account limiters, then the flow.
 */
export function createAuthRouter(auth: Auth, options: AuthRouterOptions): Router {
  const router = express.Router({ caseSensitive: true });
  const body = authJsonBody(options.bodyLimitBytes ?? 64 * 1024);
  const limits =
    options.rateLimit === false
      ? {
          perIp: passThrough,
          perAccount: passThrough,
          perUser: passThrough,
          accountLockout: passThrough,
        }
      : // Past the account-wide lockout, a solved CAPTCHA (when configured) lets a caller in.
        createRateLimits({ database: auth.database, captcha: auth.captcha, ...options.rateLimit });
  const captcha: RequestHandler = (req, _res, next) => {
    if (auth.captcha === undefined) {
      next();
      return;
    }
    auth.captcha.verify(bodyOf(req).captchaToken, req.ip).then((ok: boolean) => {
      next(ok ? undefined : new AuthError("CAPTCHA_FAILED"));
    }, next);
  };
  // The routes that set the session cookie refuse other sites (login CSRF).
  const guard = signInGuard(signInOrigins(options));
  // A session (a guest's too) sets the cookie; a second-factor challenge is answered as it is.
  const signedIn = (
    req: Request,
    res: Response,
    result: SignInResult | { readonly token: string },
  ): void => {
    if ("token" in result && sessionCookieAllowed(req)) {
      res.append(
        "Set-Cookie",
        sessionCookie(result.token, auth.sessionLifetimeSecs, options.cookie),
      );
    }
    res.json(result);
  };
  const devCode = (req: Request): boolean => auth.devMode && isLoopback(req);

  router.post("/api/auth/guest", guard, limits.perIp, async (req, res) => {
    signedIn(req, res, await auth.createGuest(clientOf(req)));
  });
  // A route that sends a code or a link: the CAPTCHA gate, then both limiters.
  const sendRoute = (path: string, send: (req: Request) => Promise<unknown>): void => {
    router.post(path, body, captcha, limits.perIp, limits.perAccount, async (req, res) => {
      res.json(await send(req));
    });
  };
  // A route that signs in: the login-CSRF guard and the body first, then its
  // own gates in the order given, then the flow with the caller's client.
  const signInRoute = (
    path: string,
    gates: readonly RequestHandler[],
    flow: (input: Record<string, unknown>, client: ClientInfo) => Promise<SignInResult>,
  ): void => {
    router.post(path, guard, body, ...gates, async (req, res) => {
      signedIn(req, res, await flow(bodyOf(req), clientOf(req)));
    });
  };
  // The code- and password-guessing sign-ins also count toward the account-wide lockout.
  const guessLimits = [limits.perIp, limits.perAccount, limits.accountLockout];

  sendRoute("/api/auth/magic/send", (req) =>
    auth.sendMagicCode(bodyOf(req), {
      exposeDevCode: devCode(req),
      ...(options.magicCodeSubject !== undefined && { subject: options.magicCodeSubject }),
    }),
  );
  signInRoute("/api/auth/magic/verify", guessLimits, (input, client) =>
    auth.verifyMagicCode(input, client),
  );
  sendRoute("/api/auth/magic-link/send", (req) =>
    auth.sendMagicLink(bodyOf(req), {
      baseURL: baseURLOf(req, options.publicURL),
      trustedOrigins: options.trustedOrigins,
      exposeDevCode: devCode(req),
    }),
  );
  router.get("/api/auth/magic-link/verify", limits.perIp, limits.perAccount, async (req, res) => {
    const query = req.query as Record<string, unknown>;
    // Check the destination before the link is spent.
    const callback =
      typeof query.callback === "string"
        ? resolveRedirect(query.callback, {
            baseURL: baseURLOf(req, options.publicURL),
            trustedOrigins: options.trustedOrigins,
          })
        : undefined;
    const result = await auth.verifyMagicLink(
      { email: query.email, token: query.token },
      clientOf(req),
    );
    if (callback === undefined) {
      signedIn(req, res, result);
      return;
    }
    if ("token" in result) {
      res.append(
        "Set-Cookie",
        sessionCookie(result.token, auth.sessionLifetimeSecs, options.cookie),
      );
      res.redirect(303, callback);
      return;
    }
    // The page at the callback finishes the sign-in with the second factor.
    const target = new URL(callback);
    target.searchParams.set("svc_challenge", result.challenge);
    res.redirect(303, target.toString());
  });
  signInRoute("/api/auth/magic-link/verify", [limits.perIp, limits.perAccount], (input, client) =>
    auth.verifyMagicLink(input, client),
  );
  signInRoute("/api/auth/password/register", [captcha, limits.perIp], (input, client) =>
    auth.registerPassword(input, client),
  );
  signInRoute("/api/auth/password/login", guessLimits, (input, client) =>
    auth.loginPassword(input, client),
  );
  sendRoute("/api/auth/password/reset/send", (req) =>
    auth.sendPasswordReset(bodyOf(req), { exposeDevCode: devCode(req) }),
  );
  signInRoute("/api/auth/password/reset", guessLimits, (input, client) =>
    auth.resetPassword(input, client),
  );
  router.post("/api/auth/password/change", body, limits.perIp, limits.perUser, async (req, res) => {
    res.json(await auth.changePassword(getAuth(req), bodyOf(req), req.ip));
  });
  sendRoute("/api/auth/phone/send-code", (req) =>
    auth.sendPhoneCode(bodyOf(req), { exposeDevCode: devCode(req) }),
  );
  signInRoute("/api/auth/phone/verify", guessLimits, (input, client) =>
    auth.verifyPhoneCode(input, client),
  );
  router.post("/api/auth/email/send-verification", body, limits.perIp, async (req, res) => {
    res.json(await auth.sendVerification(getAuth(req), { exposeDevCode: devCode(req) }));
  });
  router.post("/api/auth/email/verify", body, limits.perIp, async (req, res) => {
    res.json(await auth.verifyEmail(getAuth(req), bodyOf(req)));
  });
  router.get("/api/auth/me", async (req, res) => {
    res.json(await auth.me(getAuth(req)));
  });
  router.get("/api/auth/sessions", async (req, res) => {
    res.json(await auth.listSessions(getAuth(req)));
  });
  router.delete("/api/auth/session", async (req, res) => {
    const result = await auth.revokeSession(getAuth(req));
    res.append("Set-Cookie", clearedSessionCookie(options.cookie));
    res.json(result);
  });
  router.delete("/api/auth/sessions", async (req, res) => {
    const result = await auth.revokeAllSessions(getAuth(req));
    res.append("Set-Cookie", clearedSessionCookie(options.cookie));
    res.json(result);
  });
  router.post("/api/auth/api-keys", body, async (req, res) => {
    res.json(await auth.createApiKey(getAuth(req), bodyOf(req), req.ip));
  });
  router.get("/api/auth/api-keys", async (req, res) => {
    res.json(await auth.listApiKeys(getAuth(req)));
  });
  router.delete("/api/auth/api-keys/:keyId", async (req, res) => {
    res.json(await auth.revokeApiKey(getAuth(req), String(req.params.keyId), req.ip));
  });
  router.post("/api/auth/orgs/select", body, async (req, res) => {
    res.json(await auth.selectOrg(getAuth(req), bodyOf(req), req.ip));
  });
  router.post("/api/auth/jwt", async (req, res) => {
    res.json(await auth.mintJWT(getAuth(req), req.ip));
  });
  router.delete("/api/auth/account", async (req, res) => {
    const result = await auth.deleteAccount(getAuth(req), req.ip);
    res.append("Set-Cookie", clearedSessionCookie(options.cookie));
    res.json(result);
  });
  router.get("/api/auth/audit", async (req, res) => {
    res.json(await auth.listAudit(getAuth(req), req.query as Record<string, unknown>));
  });
  const requireAdminCaller = (req: Request): void => {
    const caller = getAuth(req);
    if (caller.isAdmin) return;
    throw new AuthError(caller.via === null ? "AUTH_REQUIRED" : "ADMIN_REQUIRED");
  };
  router.get("/api/admin/users/:userId/export", async (req, res) => {
    requireAdminCaller(req);
    res.json(await auth.exportUser(String(req.params.userId)));
  });
  router.delete("/api/admin/users/:userId/totp", async (req, res) => {
    requireAdminCaller(req);
    res.json(await auth.resetTotp(String(req.params.userId), req.ip));
  });
  registerTotpRoutes(router, auth.totp, {
    cookie: options.cookie,
    json: body,
    limit: limits.perIp,
    signIn: guard,
  });
  const inbox = auth.devInbox;
  if (auth.devMode && inbox !== undefined) {
    router.get("/api/__dev__/inbox", (req, res) => {
      if (!isLoopback(req)) throw new AuthError("LOOPBACK_ONLY");
      res.json({ messages: inbox.messages() });
    });
  }
  return router;
}

const passThrough: RequestHandler = (_req, _res, next) => next();

/**
 * Puts a wire error's headers on the response: `Set-Cookie` is added to the
 * cookies already set, every other header replaces any earlier value (a
 * rate limiter's own `Retry-After`, say), so each is sent once.
 */
export function setErrorHeaders(
  res: Response,
  headers: Readonly<Record<string, string | readonly string[]>>,
): void {
  for (const [name, value] of Object.entries(headers)) {
    const values = typeof value === "string" ? value : [...value];
    if (name.toLowerCase() === "set-cookie") res.append(name, values);
    else res.setHeader(name, values);
  }
}

/**
 * An error handler for apps that mount the auth router without svc's
 * server: `errorHandler` of `@svc/schema/http`, reporting only internal
 * errors (answered with a generic 500) to `onInternalError`.
 *
 * @deprecated Mount `errorHandler()` from `@svc/schema/http`, the one
 * handler every svc router shares; this alias stays for existing apps.
 */
export function authErrorHandler(
  onInternalError: (error: unknown, req: Request) => void = (error) => console.error(error),
): ErrorRequestHandler {
  return errorHandler<Request>({
    onError: (error, req, response) => {
      if (response.internal) onInternalError(error, req);
    },
  });
}
