import { readCookie } from "@svc/schema/http";
import { stringifySetCookie } from "cookie";
import type { Request } from "express";
import type { CookieSettings } from "../cookie-settings.js";
import type { ClientInfo } from "../session-store.js";

export type { CookieSettings };

/** The session cookie's name. */
export const SESSION_COOKIE = "svc_session";

// The value of cookie `name` in a `Cookie` header, or undefined: the
// caller seam's reader (@svc/schema/http), so the gate and this package
// read cookies alike.
export { readCookie };

/** `Set-Cookie` for a new session: HttpOnly always, for the session's lifetime. */
export function sessionCookie(token: string, maxAgeSecs: number, settings: CookieSettings): string {
  return stringifySetCookie({
    name: SESSION_COOKIE,
    value: token,
    httpOnly: true,
    path: "/",
    maxAge: maxAgeSecs,
    sameSite: settings.sameSite,
    secure: settings.secure,
    ...(settings.domain !== undefined && { domain: settings.domain }),
  });
}

/** `Set-Cookie` that deletes the session cookie. */
export function clearedSessionCookie(settings: CookieSettings): string {
  return stringifySetCookie({
    name: SESSION_COOKIE,
    value: "",
    httpOnly: true,
    path: "/",
    maxAge: 0,
    expires: new Date(0),
    sameSite: settings.sameSite,
    secure: settings.secure,
    ...(settings.domain !== undefined && { domain: settings.domain }),
  });
}

/** The cookie (or, for non-browser clients, header `X-Svc-Trusted-Device`) of a trusted device. */
export const TRUSTED_DEVICE_COOKIE = "svc_trusted_device";

/** What a request tells about its client: address, user agent, trusted-device token. */
export function clientOf(req: Request): ClientInfo {
  const header = req.headers["x-svc-trusted-device"];
  return {
    ip: req.ip,
    userAgent: req.headers["user-agent"],
    trustedDevice:
      readCookie(req.headers.cookie, TRUSTED_DEVICE_COOKIE) ??
      (typeof header === "string" ? header : undefined),
  };
}
