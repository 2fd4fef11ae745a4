/** Options of `auth.oauthLoginURL`. */
export interface OAuthLoginOptions {
  /**
   * Where the server sends the browser back after the provider: a path on
   * the server or a URL on one of the app's trusted origins.
   */
  readonly callback: string;
  /**
   * `"token"`: the session comes back in the callback's fragment
   * (`#token=…&user_id=…&expires_at=…`), for `completeOAuthRedirect`;
   * `"cookie"` (the server's default): only the session cookie is set.
   */
  readonly response?: "cookie" | "token";
}

/** What a callback URL says about an OAuth (or magic-link) sign-in. */
export type OAuthRedirectOutcome =
  | {
      readonly type: "signed-in";
      readonly token: string;
      readonly userId: string;
      /** Unix seconds. */
      readonly expiresAt: number;
    }
  | {
      readonly type: "second-factor";
      readonly challenge: string;
      /** Empty when the URL did not say (a magic link's `?svc_challenge=`). */
      readonly methods: readonly ("totp" | "backup_code")[];
    }
  | {
      /** The server's error code, e.g. `PROVIDER_DENIED`, `ACCOUNT_NOT_LINKED`. */
      readonly type: "error";
      readonly code: string;
    }
  /** Nothing to read: a cookie-mode sign-in, or a page that is not a callback. */
  | { readonly type: "none" };

/**
 * The URL that starts an OAuth sign-in: `GET /api/auth/login/<provider>`.
 * No request is made; send the browser there (`location.assign(url)`).
 *
 * @example
 * buildOAuthLoginURL("https://api.example.com", "github", { callback: "https://app.example.com/done", response: "token" });
 */
export function buildOAuthLoginURL(
  baseURL: string,
  provider: string,
  options: OAuthLoginOptions,
): string {
  const url = new URL(
    `${baseURL.replace(/\/+$/, "")}/api/auth/login/${encodeURIComponent(provider)}`,
  );
  url.searchParams.set("callback", options.callback);
  if (options.response !== undefined) url.searchParams.set("response", options.response);
  return url.toString();
}

function methodsOf(value: string | null): ("totp" | "backup_code")[] {
  return (value ?? "")
    .split(",")
    .filter(
      (method): method is "totp" | "backup_code" => method === "totp" || method === "backup_code",
    );
}

/**
 * Reads the outcome of a sign-in from the URL the server sent the browser
 * back to: the fragment `#token=…&user_id=…&expires_at=…` (response
 * `token`), the second-factor fragment `#second_factor_required=true&
 * challenge=…&methods=…`, a magic link's `?svc_challenge=…`, or `?error=CODE`.
 * Pure; `auth.completeOAuthRedirect` also stores the token.
 *
 * @example
 * parseOAuthRedirect("https://app.example.com/done?error=PROVIDER_DENIED"); // { type: "error", code: "PROVIDER_DENIED" }
 */
export function parseOAuthRedirect(href: string): OAuthRedirectOutcome {
  const url = new URL(href);
  const fragment = new URLSearchParams(url.hash.replace(/^#/, ""));
  const token = fragment.get("token");
  const userId = fragment.get("user_id");
  if (token !== null && token !== "" && userId !== null) {
    const expiresAt = Number(fragment.get("expires_at"));
    return {
      type: "signed-in",
      token,
      userId,
      expiresAt: Number.isFinite(expiresAt) ? expiresAt : 0,
    };
  }
  const challenge = fragment.get("challenge");
  if (fragment.get("second_factor_required") === "true" && challenge !== null && challenge !== "") {
    return { type: "second-factor", challenge, methods: methodsOf(fragment.get("methods")) };
  }
  const error = url.searchParams.get("error");
  if (error !== null && error !== "") return { type: "error", code: error };
  const linkChallenge = url.searchParams.get("svc_challenge");
  if (linkChallenge !== null && linkChallenge !== "") {
    return { type: "second-factor", challenge: linkChallenge, methods: [] };
  }
  return { type: "none" };
}
