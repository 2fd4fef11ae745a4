import type { AuthContext } from "@svc/schema";
import type { EntityTables, PackageMigrations, Row } from "@svc/store";
import type { Kysely } from "kysely";
import type { ApiKeyRecord, NewApiKey } from "./api-keys.js";
import type { AuditEvent, OperatorAuditEvent } from "./audit.js";
import type { AuthDatabase } from "./auth-database.js";
import type { SignIn, SignInResult } from "./auth-runtime.js";
import type { AuthCacheStats } from "./cache-stats.js";
import type { AccountDeleted } from "./flows/account-deletion.js";
import type { ExternalIdentity } from "./flows/external-identity.js";
import type { CodeSent } from "./flows/magic-code.js";
import type { LinkTargets } from "./flows/magic-link.js";
import type { PasswordChanged } from "./flows/password-change.js";
import type { UserExport } from "./flows/user-export.js";
import type { MintedJWT } from "./jwt/jwt-service.js";
import type { CaptchaVerifier, DevInbox } from "./outbound.js";
import type { CallerChangeReason, Revocation } from "./revocations.js";
import type { ClientInfo } from "./session-store.js";
import type { Totp } from "./totp/create-totp.js";

/** One of the caller's sessions, as `GET /api/auth/sessions` lists it. */
export interface SessionInfo {
  readonly id: string;
  readonly current: boolean;
  readonly guest: boolean;
  readonly created_at: number;
  readonly expires_at: number;
  readonly user_agent: string | null;
  readonly ip: string | null;
}

/** What `GET /api/auth/me` answers. */
export interface MeResponse {
  readonly user_id: string;
  readonly via: AuthContext["via"];
  readonly is_guest: boolean;
  readonly session_id: string | null;
  /** The `User` row; null for guests and users without one. */
  readonly user: Row | null;
}

/**
 * The sign-in half of svc's auth, framework-free: every method takes plain
 * values and returns the JSON the HTTP API answers, or throws an `AuthError`.
 * `@svc/auth-core/express` turns it into routes.
 */
export interface Auth {
  /** auth-core's table plans, for `store.migrate({ packages: auth.migrations })`. */
  readonly migrations: readonly PackageMigrations[];
  readonly captcha: CaptchaVerifier | undefined;
  /** The dev inbox, in dev mode without an email transport. */
  readonly devInbox: DevInbox | undefined;
  readonly sessionLifetimeSecs: number;
  readonly devMode: boolean;
  /** The TOTP second factor (enrolment, challenges, trusted devices); its routes come from the router. */
  readonly totp: Totp;
  /** Where auth-core's tables live (the rate limiter keeps its counters there too). */
  readonly database: AuthDatabase;
  /** The caller a `svc_` token stands for, or null when it is unknown, revoked or expired. */
  resolveSession(token: string): Promise<AuthContext | null>;
  createGuest(client: ClientInfo): Promise<{ token: string; user_id: string }>;
  sendMagicCode(
    body: { email?: unknown },
    options: { exposeDevCode: boolean; subject?: string },
  ): Promise<CodeSent>;
  verifyMagicCode(
    body: { email?: unknown; code?: unknown },
    client: ClientInfo,
  ): Promise<SignInResult>;
  sendMagicLink(
    body: { email?: unknown; callback?: unknown },
    options: LinkTargets & { exposeDevCode: boolean },
  ): Promise<{ sent: true; email: string; dev_link?: string }>;
  verifyMagicLink(
    body: { email?: unknown; token?: unknown },
    client: ClientInfo,
  ): Promise<SignInResult>;
  registerPassword(
    body: { email?: unknown; password?: unknown },
    client: ClientInfo,
  ): Promise<SignIn>;
  loginPassword(
    body: { email?: unknown; password?: unknown },
    client: ClientInfo,
  ): Promise<SignInResult>;
  /**
   * `POST /api/auth/password/reset/send`: emails a reset code when the
   * address has a password account; answers alike for every address.
   */
  sendPasswordReset(
    body: { email?: unknown },
    options: { exposeDevCode: boolean },
  ): Promise<CodeSent>;
  /**
   * `POST /api/auth/password/reset`: spends the reset code, sets the new
   * password, revokes every session of the user and signs in.
   */
  resetPassword(
    body: { email?: unknown; code?: unknown; password?: unknown },
    client: ClientInfo,
  ): Promise<SignInResult>;
  /**
   * `POST /api/auth/password/change` (real session only): checks the
   * current password, sets the new one and revokes the user's other sessions.
   */
  changePassword(
    auth: AuthContext,
    body: { currentPassword?: unknown; newPassword?: unknown },
    ip?: string,
  ): Promise<PasswordChanged>;
  sendPhoneCode(
    body: { phone?: unknown },
    options: { exposeDevCode: boolean },
  ): Promise<{ sent: true; phone: string; dev_code?: string }>;
  verifyPhoneCode(
    body: { phone?: unknown; code?: unknown },
    client: ClientInfo,
  ): Promise<SignInResult>;
  /**
   * Signs in the user an external provider (OAuth, OpenID Connect, SSO)
   * vouched for, creating and linking them on first sign-in: a verified
   * email links to the user with that address, anything else never links.
   * `ACCOUNT_NOT_LINKED` (409) when an unverified address belongs to an
   * existing user. @svc/oauth-providers' router calls it from the callback.
   */
  signInWithIdentity(identity: ExternalIdentity, client: ClientInfo): Promise<SignInResult>;
  sendVerification(auth: AuthContext, options: { exposeDevCode: boolean }): Promise<CodeSent>;
  verifyEmail(
    auth: AuthContext,
    body: { code?: unknown },
  ): Promise<{ verified: true; emailVerified: string }>;
  me(auth: AuthContext): Promise<MeResponse>;
  /** Revokes the caller's current session. */
  revokeSession(auth: AuthContext): Promise<{ revoked: true }>;
  /** Revokes every session of the caller's user, this one included. */
  revokeAllSessions(auth: AuthContext): Promise<{ revoked: number }>;
  listSessions(auth: AuthContext): Promise<SessionInfo[]>;
  /** The caller a `pk.` bearer stands for; null for other tokens; `INVALID_API_KEY` when bad. */
  resolveApiKey(token: string): Promise<AuthContext | null>;
  /** `POST /api/auth/api-keys` (real session only). */
  createApiKey(
    auth: AuthContext,
    body: { name?: unknown; scopes?: unknown; expires_at?: unknown },
    ip?: string,
  ): Promise<NewApiKey>;
  /** `GET /api/auth/api-keys` (real session only). */
  listApiKeys(auth: AuthContext): Promise<ApiKeyRecord[]>;
  /** `DELETE /api/auth/api-keys/<id>` (real session only): 404 `NOT_FOUND` unless the caller owns it. */
  revokeApiKey(auth: AuthContext, keyId: string, ip?: string): Promise<{ revoked: true }>;
  /** `POST /api/auth/jwt` (real session only): an HS256 JWT snapshotting the caller's tenant and roles. */
  mintJWT(auth: AuthContext, ip?: string): Promise<MintedJWT>;
  /**
   * Bearer resolvers for JWTs, in the spec's order: the upstream issuer's
   * tokens (when configured), then svc's own HS256 ones.
   */
  jwtResolvers(): readonly ((token: string) => AuthContext | null | Promise<AuthContext | null>)[];
  /**
   * `POST /api/auth/orgs/select` `{orgId}` (real session only): the session
   * acts in that organization from the next request on (`auth.tenantId`,
   * and `auth.roles` from the membership); `orgId: null` clears it.
   */
  selectOrg(
    auth: AuthContext,
    body: { orgId?: unknown },
    ip?: string,
  ): Promise<{ org_id: string | null; roles: string[] }>;
  /**
   * `DELETE /api/admin/users/<id>/totp` (the router checks the admin token):
   * removes a user's second factor, backup codes and trusted devices, e.g.
   * after a lost phone or a changed deployment secret.
   */
  resetTotp(userId: string, ip?: string): Promise<{ reset: true }>;
  /** `DELETE /api/auth/account` (real session only). */
  deleteAccount(auth: AuthContext, ip?: string): Promise<AccountDeleted>;
  /**
   * `GET /api/auth/audit`: the caller's own events; with the admin token
   * everyone's, filterable by `user_id`.
   */
  listAudit(
    auth: AuthContext,
    query: { user_id?: unknown; kind?: unknown; limit?: unknown; cursor?: unknown },
  ): Promise<{ events: AuditEvent[]; next_cursor: string | null }>;
  /**
   * Writes an operator tool's audit event (`operatorAuditKinds`: the admin
   * studio's sign-ins, edits, function runs, job and live-connection
   * actions) with no user: the tool is the actor. With `db` (a store
   * framework transaction's handle) the event commits or rolls back with
   * that transaction's writes. The caller keeps secrets out of `data`.
   *
   * @example
   * await store.frameworkTransaction(adminAuth, async ({ entities, db }) => {
   *   await entities.update("Todo", id, { done: true });
   *   await auth.recordOperatorAudit({ kind: "StudioEdit", data: { entity: "Todo", row_id: id } }, db);
   * });
   */
  recordOperatorAudit(event: OperatorAuditEvent, db?: Kysely<EntityTables>): Promise<void>;
  /** `GET /api/admin/users/<id>/export` (the router checks the admin token). */
  exportUser(userId: string): Promise<UserExport>;
  /**
   * Listens for committed changes to any user's credentials (sign-out,
   * revoked sessions or keys, account deletion or claim, a password change
   * or reset, an organization selection): this server's at once, other
   * servers' (sharing the database) within one poll of the revocation
   * journal (50 ms on Postgres, 250 ms on SQLite by default). The live transports re-check their open
   * connections of that user on each. Returns the remover.
   *
   * @example
   * const stop = auth.onRevoked(({ userId }) => live.recheckUser(userId));
   */
  onRevoked(listener: (revocation: Revocation) => void): () => void;
  /**
   * Tells every server that what `userId` resolves to changed outside
   * auth-core (billing's entitlements, after a subscription event
   * committed): the change travels the same journal as revocations, so
   * `onRevoked` listeners on this server hear it at once and other servers
   * within one poll, and drop what they cached of the user. Sessions and
   * keys stay valid.
   *
   * @example
   * createBilling({ ..., onEntitlementsChanged: (userId) => auth.announceCallerChange(userId, "entitlements-changed") });
   */
  announceCallerChange(userId: string, reason: CallerChangeReason): Promise<void>;
  /**
   * Counters of this process's credential caches (resolved sessions, verified
   * API keys): hits, misses, invalidations (a revocation here or another
   * server's, read from the journal), evictions, size. For metrics; no I/O.
   *
   * @example
   * const { session } = auth.cacheStats();
   * console.log(session.hits / Math.max(1, session.hits + session.misses));
   */
  cacheStats(): AuthCacheStats;
  /** Writes what is still buffered (API key use times) and stops timers. Call before closing the store. */
  close(): Promise<void>;
  /** Empties auth-core's tables (the dev-mode test reset). */
  reset(): Promise<void>;
}
