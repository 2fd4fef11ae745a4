import { stringifySetCookie } from "cookie";
import type { RequestHandler, Router } from "express";
import type { Totp } from "../totp/create-totp.js";
import { TRUSTED_DEVICE_TTL_MS } from "../totp/trusted-devices.js";
import { type CookieSettings, clientOf, sessionCookie, TRUSTED_DEVICE_COOKIE } from "./cookies.js";
import { bodyOf } from "./json-body.js";
import { getAuth } from "./request-auth.js";
import { sessionCookieAllowed } from "./sign-in-guard.js";

/** Options of `registerTotpRoutes`. */
export interface TotpRoutesOptions {
  readonly cookie: CookieSettings;
  /** The auth router's JSON body parser (`authJsonBody`). */
  readonly json: RequestHandler;
  /**
   * Run before `confirm`, `disable` and `verify` (the code-guessing
   * endpoints), e.g. the auth router's per-IP limiter. Default none.
   */
  readonly limit?: RequestHandler;
  /**
   * Run first on `verify`, which sets the session cookie: the auth
   * router's `signInGuard` (login CSRF). Default none.
   */
  readonly signIn?: RequestHandler;
}

/** `Set-Cookie` for a trusted device: HttpOnly, the session cookie's attributes, 30 days. */
function trustedDeviceCookie(token: string, settings: CookieSettings): string {
  return stringifySetCookie({
    name: TRUSTED_DEVICE_COOKIE,
    value: token,
    httpOnly: true,
    path: "/",
    maxAge: TRUSTED_DEVICE_TTL_MS / 1000,
    sameSite: settings.sameSite,
    secure: settings.secure,
    ...(settings.domain !== undefined && { domain: settings.domain }),
  });
}

/**
 * Adds the TOTP endpoints to `router` (paths absolute, like the auth
 * router's; `authenticate` must have run): `GET /api/auth/totp`, `POST
 * /api/auth/totp/{enroll,confirm,disable,verify}`, `GET
 * /api/auth/trusted-devices` and `DELETE /api/auth/trusted-devices/:id`.
 * `verify` sets the session cookie for the session's remaining lifetime,
 * and the `svc_trusted_device` cookie when the device was trusted.
 *
 * @example
 * registerTotpRoutes(router, totp, { cookie: config.cookie, json: authJsonBody(64 * 1024) });
 */
export function registerTotpRoutes(router: Router, totp: Totp, options: TotpRoutesOptions): void {
  const { cookie, json } = options;
  const pass: RequestHandler = (_req, _res, next) => next();
  const limit = options.limit ?? pass;
  router.get("/api/auth/totp", async (req, res) => {
    res.json(await totp.status(getAuth(req)));
  });
  router.post("/api/auth/totp/enroll", async (req, res) => {
    res.json(await totp.enroll(getAuth(req)));
  });
  router.post("/api/auth/totp/confirm", json, limit, async (req, res) => {
    res.json(await totp.confirm(getAuth(req), bodyOf(req), req.ip));
  });
  router.post("/api/auth/totp/disable", json, limit, async (req, res) => {
    res.json(await totp.disable(getAuth(req), bodyOf(req), req.ip));
  });
  router.post("/api/auth/totp/verify", options.signIn ?? pass, json, limit, async (req, res) => {
    const result = await totp.verifyChallenge(bodyOf(req), clientOf(req));
    const remainingSecs = Math.max(0, result.expires_at - Math.floor(totp.now() / 1000));
    // A client the guard trusts with no cookie gets none (the token is in the answer).
    if (!sessionCookieAllowed(req)) {
      res.json(result);
      return;
    }
    res.append("Set-Cookie", sessionCookie(result.token, remainingSecs, cookie));
    if (result.trusted_device !== undefined) {
      res.append("Set-Cookie", trustedDeviceCookie(result.trusted_device.token, cookie));
    }
    res.json(result);
  });
  router.get("/api/auth/trusted-devices", async (req, res) => {
    res.json(await totp.listDevices(getAuth(req)));
  });
  router.delete("/api/auth/trusted-devices/:id", async (req, res) => {
    res.json(await totp.revokeDevice(getAuth(req), String(req.params.id), req.ip));
  });
}
