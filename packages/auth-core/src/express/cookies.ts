import { parseCookie, stringifySetCookie } from "cookie";

/** The session cookie's name. */
export const SESSION_COOKIE = "svc_session";

/** How the session cookie is set (`SVC_COOKIE_DOMAIN`, `SVC_COOKIE_SAME_SITE`, `SVC_COOKIE_SECURE`). */
export interface CookieSettings {
  readonly domain?: string | undefined;
  readonly sameSite: "lax" | "strict" | "none";
  readonly secure: boolean;
}

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
