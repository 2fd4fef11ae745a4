import { parseCookie, stringifySetCookie } from "cookie";
import type { CookieSettings } from "../cookie-settings.js";

export type { CookieSettings };

/** The session cookie's name. */
export const SESSION_COOKIE = "svc_session";

/** The value of cookie `name` in a `Cookie` header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined || !header.includes(name)) return undefined;
  const value = parseCookie(header)[name];
  return value === undefined || value === "" ? undefined : value;
}

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
