import { SvcError } from "./errors.js";
import {
  buildOAuthLoginURL,
  type OAuthLoginOptions,
  type OAuthRedirectOutcome,
  parseOAuthRedirect,
} from "./oauth.js";
import type { TokenState } from "./token-state.js";
import type { Transport } from "./transport.js";
import type {
  AccountDeleted,
  CodeSent,
  GuestSession,
  LinkSent,
  Me,
  MintedJWT,
  OAuthProviderInfo,
  PasswordChanged,
  SecondFactorRequired,
  SecondFactorSignIn,
  SessionInfo,
  SignIn,
  SignInResult,
  TotpEnabled,
  TotpEnrollment,
  TotpStatus,
} from "./types.js";

/** Options of `auth.verifySecondFactor`. */
export interface VerifySecondFactorOptions {
  /** `code` is a backup code rather than an authenticator code. Default false. */
  readonly backupCode?: boolean;
  /** Trust this device for 30 days; the answer carries `trusted_device`. Default false. */
  readonly trustDevice?: boolean;
}

/** The TOTP second factor of the signed-in user (real session only). */
export interface TotpClient {
  /** `GET /api/auth/totp`. */
  status(): Promise<TotpStatus>;
  /** `POST /api/auth/totp/enroll`: a pending secret; turn it on with `confirm`. */
  enroll(): Promise<TotpEnrollment>;
  /** `POST /api/auth/totp/confirm`: turns TOTP on; the backup codes are shown this once. */
  confirm(code: string): Promise<TotpEnabled>;
  /** `POST /api/auth/totp/disable` with an authenticator code (or a backup code). */
  disable(code: string, options?: { backupCode?: boolean }): Promise<{ disabled: true }>;
}

/**
 * Every auth flow of the server. Calls that answer a session store its
 * token (sent as `Authorization: Bearer` from then on) and fire
 * `onAuthChange`; sign-out calls clear it.
 */
export interface AuthClient {
  /** `POST /api/auth/guest`: a guest session (usable with `auth: "guest"` functions). */
  guest(): Promise<GuestSession>;
  /** `POST /api/auth/magic/send`; `captchaToken` when the server's CAPTCHA gate is on. */
  sendMagicCode(email: string, options?: { captchaToken?: string }): Promise<CodeSent>;
  /** `POST /api/auth/magic/verify`: a session, or the second-factor challenge. */
  verifyMagicCode(email: string, code: string): Promise<SignInResult>;
  /** `POST /api/auth/magic-link/send`; `callback` is where the link lands after sign-in. */
  sendMagicLink(
    email: string,
    callback?: string,
    options?: { captchaToken?: string },
  ): Promise<LinkSent>;
  /** `POST /api/auth/magic-link/verify` with the link's `email` and `token`. */
  verifyMagicLink(email: string, token: string): Promise<SignInResult>;
  /** `POST /api/auth/password/register`: creates the user and signs in. */
  register(email: string, password: string, options?: { captchaToken?: string }): Promise<SignIn>;
  /** `POST /api/auth/password/login`: a session, or the second-factor challenge. */
  login(email: string, password: string): Promise<SignInResult>;
  /**
   * `POST /api/auth/password/reset/send`: emails a reset code when the
   * address has a password account; the answer is the same either way.
   */
  sendPasswordReset(email: string, options?: { captchaToken?: string }): Promise<CodeSent>;
  /**
   * `POST /api/auth/password/reset`: sets `password` with the emailed code;
   * every earlier session ends, and the answer (a session, stored, or the
   * second-factor challenge) is a login's.
   */
  resetPassword(email: string, code: string, password: string): Promise<SignInResult>;
  /**
   * `POST /api/auth/password/change` (real session only): the user's other
   * sessions end, this one stays.
   */
  changePassword(currentPassword: string, newPassword: string): Promise<PasswordChanged>;
  /** `POST /api/auth/totp/verify`: finishes a challenged sign-in and stores the session. */
  verifySecondFactor(
    challenge: string,
    code: string,
    options?: VerifySecondFactorOptions,
  ): Promise<SecondFactorSignIn>;
  /** The TOTP enrolment of the signed-in user. */
  readonly totp: TotpClient;
  /** `POST /api/auth/email/send-verification`: emails a code to the caller's address. */
  sendVerification(): Promise<CodeSent>;
  /** `POST /api/auth/email/verify`: stamps `User.emailVerified`. */
  verifyEmail(code: string): Promise<{ verified: true; emailVerified: string }>;
  /** `GET /api/auth/me`: who the stored token stands for. */
  me(): Promise<Me>;
  /** `GET /api/auth/sessions`: the user's sessions, `current` marking this one. */
  sessions(): Promise<SessionInfo[]>;
  /**
   * `DELETE /api/auth/session` (also clears the session cookie), then
   * clears the stored token; resolves when there was no live session (401),
   * and clears the token before rethrowing any other error.
   */
  signOut(): Promise<void>;
  /** `DELETE /api/auth/sessions`: revokes every session of the user; clears the token. */
  signOutEverywhere(): Promise<{ revoked: number }>;
  /** `POST /api/auth/orgs/select`: acts in `orgId` (null: none) from the next request; fires `onAuthChange`. */
  selectOrg(orgId: string | null): Promise<{ org_id: string | null; roles: string[] }>;
  /** `DELETE /api/auth/account` (real session only); clears the token. */
  deleteAccount(): Promise<AccountDeleted>;
  /** `POST /api/auth/jwt`: an HS256 JWT for the caller (the server needs `SVC_JWT_SECRET`). */
  mintJWT(): Promise<MintedJWT>;
  /** `GET /api/auth/providers`: the enabled OAuth providers. */
  providers(): Promise<OAuthProviderInfo[]>;
  /** The URL that starts an OAuth sign-in at `provider`; no request is made. */
  oauthLoginURL(provider: string, options: OAuthLoginOptions): string;
  /**
   * Reads a callback URL (`location.href`) and stores the session it
   * carries; see `parseOAuthRedirect` for what it understands.
   */
  completeOAuthRedirect(locationHref: string): Promise<OAuthRedirectOutcome>;
}

/** True when a sign-in answered the second-factor challenge instead of a session. */
export function isSecondFactorRequired(result: SignInResult): result is SecondFactorRequired {
  return "second_factor_required" in result && result.second_factor_required === true;
}

function withCaptcha(
  body: Record<string, unknown>,
  options: { captchaToken?: string } | undefined,
): Record<string, unknown> {
  return options?.captchaToken === undefined
    ? body
    : { ...body, captchaToken: options.captchaToken };
}

/** Builds `client.auth` over the client's transport and token. */
export function createAuthClient(transport: Transport, tokens: TokenState): AuthClient {
  const post = async <T>(path: string, body: unknown = {}): Promise<T> =>
    (await transport.request<T>({ method: "POST", path, body })).data;
  const get = async <T>(path: string): Promise<T> =>
    (await transport.request<T>({ method: "GET", path })).data;
  const del = async <T>(path: string): Promise<T> =>
    (await transport.request<T>({ method: "DELETE", path })).data;
  const keep = async <T extends SignInResult | GuestSession>(result: T): Promise<T> => {
    if ("token" in result) await tokens.set(result.token, result.user_id, "sign-in");
    return result;
  };
  const signedOut = async (): Promise<void> => {
    if ((await tokens.get()) !== null) await tokens.set(null, null, "sign-out");
  };

  return {
    guest: async () => keep(await post<GuestSession>("/api/auth/guest")),
    sendMagicCode: (email, options) =>
      post("/api/auth/magic/send", withCaptcha({ email }, options)),
    verifyMagicCode: async (email, code) =>
      keep(await post<SignInResult>("/api/auth/magic/verify", { email, code })),
    sendMagicLink: (email, callback, options) =>
      post(
        "/api/auth/magic-link/send",
        withCaptcha({ email, ...(callback !== undefined && { callback }) }, options),
      ),
    verifyMagicLink: async (email, token) =>
      keep(await post<SignInResult>("/api/auth/magic-link/verify", { email, token })),
    register: async (email, password, options) =>
      keep(
        await post<SignIn>(
          "/api/auth/password/register",
          withCaptcha({ email, password }, options),
        ),
      ),
    login: async (email, password) =>
      keep(await post<SignInResult>("/api/auth/password/login", { email, password })),
    sendPasswordReset: (email, options) =>
      post("/api/auth/password/reset/send", withCaptcha({ email }, options)),
    resetPassword: async (email, code, password) =>
      keep(await post<SignInResult>("/api/auth/password/reset", { email, code, password })),
    changePassword: (currentPassword, newPassword) =>
      post("/api/auth/password/change", { currentPassword, newPassword }),
    verifySecondFactor: async (challenge, code, options) =>
      keep(
        await post<SecondFactorSignIn>("/api/auth/totp/verify", {
          challenge,
          ...(options?.backupCode === true ? { backup_code: code } : { code }),
          ...(options?.trustDevice === true && { trust_device: true }),
        }),
      ),
    totp: {
      status: () => get("/api/auth/totp"),
      enroll: () => post("/api/auth/totp/enroll"),
      confirm: (code) => post("/api/auth/totp/confirm", { code }),
      disable: (code, options) =>
        post(
          "/api/auth/totp/disable",
          options?.backupCode === true ? { backup_code: code } : { code },
        ),
    },
    sendVerification: () => post("/api/auth/email/send-verification"),
    verifyEmail: (code) => post("/api/auth/email/verify", { code }),
    me: () => get("/api/auth/me"),
    sessions: () => get("/api/auth/sessions"),
    async signOut() {
      try {
        await del("/api/auth/session");
      } catch (error) {
        // A 401 means there was no live session to revoke: signed out all the same.
        if (!(error instanceof SvcError && error.status === 401)) {
          await signedOut();
          throw error;
        }
      }
      await signedOut();
    },
    async signOutEverywhere() {
      const result = await del<{ revoked: number }>("/api/auth/sessions");
      await signedOut();
      return result;
    },
    async selectOrg(orgId) {
      const result = await post<{ org_id: string | null; roles: string[] }>(
        "/api/auth/orgs/select",
        { orgId },
      );
      tokens.emit("org-change");
      return result;
    },
    async deleteAccount() {
      const result = await del<AccountDeleted>("/api/auth/account");
      await signedOut();
      return result;
    },
    mintJWT: () => post("/api/auth/jwt"),
    providers: async () =>
      (await get<{ providers: OAuthProviderInfo[] }>("/api/auth/providers")).providers,
    oauthLoginURL: (provider, options) => buildOAuthLoginURL(transport.baseURL, provider, options),
    async completeOAuthRedirect(locationHref) {
      const outcome = parseOAuthRedirect(locationHref);
      if (outcome.type === "signed-in") {
        await tokens.set(outcome.token, outcome.userId, "sign-in");
      }
      return outcome;
    },
  };
}
