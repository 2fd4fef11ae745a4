import type { Request, RequestHandler, Response, Router } from "express";
import { html, type SafeHTML } from "./html.js";
import { errorBox, renderPage, STUDIO_PATH } from "./layout.js";
import { StudioError } from "./studio-errors.js";
import {
  checkCsrfToken,
  checkSameOrigin,
  clearedStudioCookie,
  formField,
  sendPage,
  studioCookie,
  studioCookieOf,
} from "./studio-http.js";
import type { StudioOptions } from "./studio-options.js";
import { type StudioSessions, secretsEqual } from "./studio-sessions.js";

/** The sign-in page; in dev mode it says where the generated admin token is kept. */
export function renderSignIn(
  devMode: boolean,
  error?: { readonly code: string; readonly message: string },
  returnPath?: string,
): SafeHTML {
  const next = safeReturnPath(returnPath);
  return renderPage({
    title: "Sign in",
    body: html`${error !== undefined && errorBox(error)}
      <form class="fields" method="post" action="${STUDIO_PATH}/sign-in">
        ${next !== STUDIO_PATH && html`<input type="hidden" name="next" value="${next}">`}
        <label for="token">Admin token</label>
        <input id="token" name="token" type="password" autocomplete="off" required>
        <div class="actions"><button type="submit">Sign in</button></div>
      </form>
      <p>The studio opens with the server's admin token (<code>SVC_ADMIN_TOKEN</code>).${
        devMode &&
        html` In dev mode without that variable, the server generates one and keeps it in <code>.svc/admin-token</code> beside the manifest.`
      }</p>`,
  });
}

const RETURN_PATH = /^\/studio(?:[/?][\x21-\x7e]*)?$/;
const PLACEHOLDER_ORIGIN = "http://studio.invalid";

/**
 * Where to go after signing in: `next` when it is a studio page of this
 * server (an absolute path under `/studio`, no scheme, host, backslash,
 * dot segment or control character), otherwise the studio's home. So the
 * sign-in form can never send a browser to another site.
 */
export function safeReturnPath(next: string | undefined): string {
  if (next === undefined || next.length > 2048 || !RETURN_PATH.test(next) || next.includes("\\"))
    return STUDIO_PATH;
  let parsed: URL;
  try {
    parsed = new URL(next, PLACEHOLDER_ORIGIN);
  } catch {
    return STUDIO_PATH;
  }
  const { origin, pathname, search } = parsed;
  // Dot segments (also percent-encoded ones) are resolved by the parser first.
  if (
    origin !== PLACEHOLDER_ORIGIN ||
    !(pathname === STUDIO_PATH || pathname.startsWith(`${STUDIO_PATH}/`))
  )
    return STUDIO_PATH;
  // Never back to the sign-in or sign-out endpoints themselves.
  if (pathname.startsWith(`${STUDIO_PATH}/sign-`)) return STUDIO_PATH;
  return `${pathname}${search}`;
}

/**
 * Sign-in and sign-out. Signing in compares the admin token in constant
 * time and sets a cookie holding a random session id (never the token);
 * both are same-origin POSTs, and sign-out also needs the session's CSRF
 * token. A wrong token answers 401 with the form again.
 */
export function registerSignInPages(
  router: Router,
  options: StudioOptions & { readonly sessions: StudioSessions },
  input: { readonly form: RequestHandler; readonly signedIn: readonly RequestHandler[] },
): void {
  const { sessions, devMode } = options;
  const limiter: RequestHandler[] =
    options.signInLimiter === undefined ? [] : [options.signInLimiter];

  router.post(
    `${STUDIO_PATH}/sign-in`,
    ...limiter,
    input.form,
    async (req: Request, res: Response) => {
      checkSameOrigin(req);
      const token = formField(req, "token") ?? "";
      const next = formField(req, "next");
      // Bounded before hashing; a real token is 128 hex characters or so.
      if (token.length > 4096 || !secretsEqual(token, options.adminToken)) {
        sendPage(res, 401, renderSignIn(devMode, new StudioError("INVALID_TOKEN"), next));
        return;
      }
      // A sign-in replaces the browser's previous studio session.
      await sessions.revoke(studioCookieOf(req));
      const { id, session } = await sessions.create();
      await options.auth.recordOperatorAudit({
        kind: "StudioSignIn",
        data: { actor: "studio", studio_session: session.ref },
        ...(req.ip !== undefined && { ip: req.ip }),
      });
      const now = options.now ?? Date.now;
      res.setHeader("Set-Cookie", studioCookie(req, id, (session.expiresAt - now()) / 1000));
      res.redirect(303, safeReturnPath(next));
    },
  );

  // A reload of the sign-in page (the browser's address after a wrong
  // token) or a bookmark: the form, or the studio when already signed in.
  router.get(`${STUDIO_PATH}/sign-in`, async (req: Request, res: Response) => {
    if ((await sessions.resolve(studioCookieOf(req))) !== null) {
      res.redirect(303, STUDIO_PATH);
      return;
    }
    sendPage(res, 200, renderSignIn(devMode));
  });

  router.post(`${STUDIO_PATH}/sign-out`, ...input.signedIn, async (req, res) => {
    checkCsrfToken(req, res);
    // Deleted from the shared table: every other server refuses it from now on.
    await sessions.revoke(studioCookieOf(req));
    res.setHeader("Set-Cookie", clearedStudioCookie(req));
    res.redirect(303, STUDIO_PATH);
  });
}
