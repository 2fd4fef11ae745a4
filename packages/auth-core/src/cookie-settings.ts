/**
 * How the session cookie is set (`SVC_COOKIE_DOMAIN`, `SVC_COOKIE_SAME_SITE`,
 * `SVC_COOKIE_SECURE`); read by `parseAuthConfig`, used by the express router.
 */
export interface CookieSettings {
  /** Unset: a host-only cookie. */
  readonly domain?: string | undefined;
  readonly sameSite: "lax" | "strict" | "none";
  readonly secure: boolean;
}
