import { setErrorHeaders } from "@svc/auth-core/express";
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { toErrorResponse } from "../errors.js";
import { registerAuthPages } from "./auth-pages.js";
import { registerEntityPages } from "./entity-pages.js";
import { registerFunctionPages } from "./function-pages.js";
import { registerJobPages } from "./job-pages.js";
import { errorBox, renderPage, STUDIO_PATH } from "./layout.js";
import { registerLivePages } from "./live-pages.js";
import { registerLogPages } from "./log-pages.js";
import { registerMetricsPages } from "./metrics-pages.js";
import { registerPolicyPages } from "./policy-pages.js";
import { registerSignInPages, renderSignIn } from "./sign-in-pages.js";
import { STUDIO_CSS, STUDIO_ICON, STUDIO_JS } from "./studio-assets.js";
import { StudioError } from "./studio-errors.js";
import {
  formBody,
  foundSessionOf,
  requireSession,
  securityHeaders,
  sendPage,
  studioCookieOf,
} from "./studio-http.js";
import type { StudioOptions } from "./studio-options.js";
import { createStudioSessions, type StudioSession } from "./studio-sessions.js";

const DEFAULT_BODY_LIMIT = 1024 * 1024;

function logInternalError(error: unknown, req: Request): void {
  console.error(`svc: studio: ${req.method} ${req.path} failed:`, error);
}

/**
 * The admin studio at `/studio`: server-rendered pages over the server's
 * own store, function runner, policies, auth tables and job queue. Every
 * page but the sign-in form needs a studio session, opened by signing in
 * with the admin token; every change is a same-origin POST carrying the
 * session's CSRF token. Mount it with `app.use(createStudioRouter(...))`.
 *
 * @example
 * app.use(createStudioRouter({ store, functions: runner, auth, jobs, adminToken, devMode: false }));
 */
export function createStudioRouter(options: StudioOptions): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  // In auth-core's session database, so they survive a restart and work on every server.
  const sessions = createStudioSessions({
    database: options.auth.database,
    ...(options.now !== undefined && { now: options.now }),
  });
  const form = formBody(options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT);
  const signedIn = [requireSession(sessions), form];
  const onInternalError = options.onInternalError ?? logInternalError;

  router.use(STUDIO_PATH, securityHeaders);
  router.get(`${STUDIO_PATH}/assets/studio.css`, (_req, res) => {
    res.type("css").send(STUDIO_CSS);
  });
  router.get(`${STUDIO_PATH}/assets/studio.js`, (_req, res) => {
    res.type("js").send(STUDIO_JS);
  });
  router.get(`${STUDIO_PATH}/assets/icon.svg`, (_req, res) => {
    res.type("svg").send(STUDIO_ICON);
  });
  registerSignInPages(router, { ...options, sessions }, { form, signedIn });
  registerEntityPages(router, options, signedIn);
  registerFunctionPages(router, { ...options, onInternalError }, signedIn);
  registerPolicyPages(router, options, signedIn);
  registerAuthPages(router, options, signedIn);
  registerJobPages(router, options, signedIn);
  registerLogPages(router, options, signedIn);
  registerMetricsPages(router, options, signedIn);
  registerLivePages(router, options, signedIn);
  router.use(STUDIO_PATH, (_req, _res, next) => {
    next(new StudioError("NOT_FOUND"));
  });

  // Errors become pages here, never JSON: the sign-in form when the session
  // is missing, otherwise the error envelope's code and message.
  router.use(STUDIO_PATH, (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    if (error instanceof StudioError && error.code === "AUTH_REQUIRED") {
      // The studio's front door answers 200 with the form; deeper pages 401,
      // and a page that was asked for with GET is where the sign-in returns.
      const home =
        req.method === "GET" &&
        (req.originalUrl.split("?")[0] ?? "").replace(/\/$/, "") === STUDIO_PATH;
      sendPage(
        res,
        home ? 200 : 401,
        home
          ? renderSignIn(options.devMode)
          : renderSignIn(
              options.devMode,
              error,
              req.method === "GET" ? req.originalUrl : undefined,
            ),
      );
      return;
    }
    const { status, body, headers, internal } = toErrorResponse(error);
    if (internal || status >= 500) onInternalError(error, req);
    // e.g. the sign-in limiter's Retry-After.
    setErrorHeaders(res, headers);
    const sendError = (signedIn: StudioSession | null | undefined): void =>
      sendPage(
        res,
        status,
        renderPage({
          title: status === 404 ? "Not found" : "Error",
          csrfToken: signedIn?.csrfToken,
          body: errorBox(body.error),
        }),
      );
    // The session the gate found, else looked up for the header's sign-out
    // form (when the lookup itself fails, the page is shown signed out).
    const found = foundSessionOf(res);
    if (found !== undefined) sendError(found);
    else sessions.resolve(studioCookieOf(req)).then(sendError, () => sendError(null));
  });
  return router;
}
