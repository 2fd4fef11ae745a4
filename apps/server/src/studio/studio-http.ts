import { readCookie } from "@svc/auth-core/express";
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from "express";
import type { HTMLValue, SafeHTML } from "./html.js";
import { renderPage, STUDIO_PATH, type StudioSection } from "./layout.js";
import { StudioError } from "./studio-errors.js";
import { type StudioSession, type StudioSessions, secretsEqual } from "./studio-sessions.js";

/** The studio's cookie: a random session id, scoped to `/studio`. */
export const STUDIO_COOKIE = "svc_studio";

/** The studio's CSP: its own stylesheet and script only, no framing, forms post back to it. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "script-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/** Headers on every studio answer: never cached, never framed, no inline code, no sniffing. */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  res.setHeader("X-Content-Type-Options", "nosniff");
  // Keeps `Origin` on same-origin form posts (the CSRF check reads it) and
  // sends no studio URL (which may hold filter values) to other sites.
  res.setHeader("Referrer-Policy", "same-origin");
  next();
};

/** Sends a rendered page. */
export function sendPage(res: Response, status: number, page: SafeHTML): void {
  res.status(status).type("html").send(page.toString());
}

/** Sends a page of the signed-in studio: the layout, with the session's CSRF token for its forms. */
export function sendStudioPage(
  res: Response,
  page: { readonly title: string; readonly section: StudioSection; readonly body: HTMLValue },
  status = 200,
): void {
  sendPage(res, status, renderPage({ ...page, csrfToken: sessionOf(res).csrfToken }));
}

/** `Set-Cookie` for a signed-in studio: HttpOnly, SameSite=Strict, Secure over https. */
export function studioCookie(req: Request, id: string, maxAgeSecs: number): string {
  return `${STUDIO_COOKIE}=${id}; Path=${STUDIO_PATH}; Max-Age=${Math.max(0, Math.floor(maxAgeSecs))}; HttpOnly; SameSite=Strict${req.secure ? "; Secure" : ""}`;
}

/** `Set-Cookie` that deletes the studio cookie. */
export function clearedStudioCookie(req: Request): string {
  return `${STUDIO_COOKIE}=; Path=${STUDIO_PATH}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict${req.secure ? "; Secure" : ""}`;
}

/** The studio cookie's value on this request. */
export function studioCookieOf(req: Request): string | undefined {
  return readCookie(req.headers.cookie, STUDIO_COOKIE);
}

/** The signed-in session of a request that passed `requireSession`. */
export function sessionOf(res: Response): StudioSession {
  return res.locals.studioSession as StudioSession;
}

/** The session `requireSession` found for this request, or undefined when it has not run or found none. */
export function foundSessionOf(res: Response): StudioSession | undefined {
  return res.locals.studioSession as StudioSession | undefined;
}

/**
 * Lets only a signed-in studio through (else 401 `AUTH_REQUIRED`, which the
 * studio answers with the sign-in form).
 */
export function requireSession(sessions: StudioSessions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    sessions.resolve(studioCookieOf(req)).then((session) => {
      if (session === null) {
        next(new StudioError("AUTH_REQUIRED"));
        return;
      }
      res.locals.studioSession = session;
      next();
    }, next);
  };
}

/**
 * Refuses a request another site may have sent: an `Origin` other than the
 * server's own, or, without one, a browser's `Sec-Fetch-Site` saying
 * cross-site. Runs on every studio POST, the sign-in included (so no site
 * can sign a browser in to its own choosing).
 */
export function checkSameOrigin(req: Request): void {
  const origin = req.headers.origin;
  if (origin === undefined) {
    const site = req.headers["sec-fetch-site"];
    if (site === "cross-site" || site === "same-site") throw new StudioError("CSRF_FAILED");
    return;
  }
  // `req.protocol` and `req.host` (with its port) follow `trust proxy`, so
  // behind a trusted TLS proxy the page's https origin matches.
  if (origin !== `${req.protocol}://${req.host ?? ""}`) throw new StudioError("CSRF_FAILED");
}

/** A form field's text, or undefined when absent (a repeated field is malformed). */
export function formField(req: Request, name: string): string | undefined {
  const body = req.body as Record<string, unknown> | undefined;
  const value = body?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string")
    throw new StudioError("INVALID_FORM", `The field ${name} is malformed.`);
  return value;
}

/**
 * For a state-changing POST of a signed-in studio: the same-origin check
 * plus the session's CSRF token in `_csrf` (constant-time compare).
 */
export function checkCsrfToken(req: Request, res: Response): void {
  checkSameOrigin(req);
  const given = formField(req, "_csrf") ?? "";
  if (!secretsEqual(given, sessionOf(res).csrfToken)) throw new StudioError("CSRF_FAILED");
}

/**
 * Parses `application/x-www-form-urlencoded` bodies (flat fields only, at
 * most `limitBytes`); anything else leaves the body empty, which the
 * handlers refuse through the CSRF check.
 */
export function formBody(limitBytes: number): RequestHandler {
  const parse = express.urlencoded({ extended: false, limit: limitBytes, parameterLimit: 500 });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      if (error === undefined || error === null) {
        next();
        return;
      }
      next(new StudioError("INVALID_FORM", "The form could not be read (too large or malformed)."));
    });
  };
}

/** The longest query-string parameter a studio page reads, unless it says otherwise. */
export const MAX_PARAM_CHARS = 1024;

/**
 * A query-string parameter's text, or undefined (a repeated parameter is
 * malformed, a longer one than `maxChars` too: 400 `INVALID_FORM`).
 */
export function queryParam(
  req: Request,
  name: string,
  maxChars: number = MAX_PARAM_CHARS,
): string | undefined {
  const value = req.query[name];
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string")
    throw new StudioError("INVALID_FORM", `The parameter ${name} is malformed.`);
  if (value.length > maxChars) {
    throw new StudioError(
      "INVALID_FORM",
      `The parameter ${name} is too long (at most ${maxChars} characters).`,
    );
  }
  return value;
}

/** A cursor parameter: the store's signed cursors carry a sort value, so they may be long. */
export function cursorParam(req: Request): string | undefined {
  return queryParam(req, "cursor", 16 * 1024);
}
