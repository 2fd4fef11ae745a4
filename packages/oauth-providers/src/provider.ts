/**
 * A verified external identity: what a provider callback turns into. The
 * email is `null` when the provider exposes none; `emailVerified` is true
 * only when the provider itself asserts the address is verified.
 */
export interface OAuthIdentity {
  /** The provider's id, e.g. `github`. */
  readonly provider: string;
  /** The provider's stable user id (`sub` for OpenID Connect), as a string. */
  readonly providerUserId: string;
  readonly email: string | null;
  readonly emailVerified: boolean;
  readonly name?: string;
  readonly avatarUrl?: string;
}

/** What `createAuthorizationURL` needs: fresh random values the caller stores with the state. */
export interface AuthorizationURLInput {
  readonly state: string;
  /** The PKCE verifier (43-128 characters); providers without PKCE ignore it. */
  readonly codeVerifier: string;
  /** The OpenID Connect nonce; providers without ID tokens ignore it. */
  readonly nonce: string;
  /** Overrides the provider's configured scopes for this request. */
  readonly scopes?: readonly string[];
}

/** What `validateCallback` needs: the callback's code and the values saved with the state. */
export interface CallbackInput {
  readonly code: string;
  readonly codeVerifier: string;
  readonly nonce: string;
  /**
   * Every parameter of the callback (query or form body), for providers
   * that send more than the code: Apple posts the user's name as `user`
   * on the first sign-in only.
   */
  readonly params?: Readonly<Record<string, string>>;
}

/**
 * svc's own small provider interface: every built-in provider and the
 * generic OpenID Connect adapter implement it, and an application can
 * replace any of them with its own object.
 */
export interface OAuthProvider {
  /** Lower-case id, used in `/api/auth/login/<id>` and the callback path. */
  readonly id: string;
  /** Display name, e.g. `GitHub`. */
  readonly name: string;
  /** `oidc` for generic OpenID Connect providers; default `oauth` (a built-in). */
  readonly kind?: "oauth" | "oidc";
  /** How the provider returns to the callback; default `query` (a GET). */
  readonly responseMode?: "query" | "form_post";
  /** The provider's authorization address to redirect the browser to. */
  createAuthorizationURL(input: AuthorizationURLInput): URL;
  /**
   * Exchanges the code and reads the user's identity. Throws `OAuthError`
   * (`PROVIDER_DENIED`, `PROVIDER_ERROR`, `INVALID_ID_TOKEN`).
   */
  validateCallback(input: CallbackInput): Promise<OAuthIdentity>;
}

/** The options every built-in provider takes. */
export interface OAuthProviderOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  /** The registered callback address, e.g. `https://app.example/api/auth/callback/github`. */
  readonly redirectURI: string;
  /** Replaces the provider's default scopes. */
  readonly scopes?: readonly string[];
  /**
   * Base URL overrides per host role, e.g. `{ auth: "http://127.0.0.1:4000" }`:
   * each provider documents its roles. Meant for tests and self-hosted
   * instances; every HTTP call the provider makes goes to these.
   */
  readonly endpoints?: Readonly<Record<string, string>>;
}
