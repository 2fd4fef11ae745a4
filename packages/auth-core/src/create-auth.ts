import { type AuthContext, createAuthContext, generateId } from "@svc/schema";
import type { PackageMigrations, Row, Store } from "@svc/store";
import { type ApiKeyRecord, createApiKeys, type NewApiKey } from "./api-keys.js";
import { type AuditEvent, type AuditKind, listAudit, recordAudit } from "./audit.js";
import type { AuthDatabase } from "./auth-database.js";
import {
  type AuthRuntime,
  accountTablesOf,
  type SignIn,
  type SignInResult,
  signIn,
  tablesOf,
} from "./auth-runtime.js";
import { AuthError } from "./errors.js";
import { type AccountDeleted, deleteAccount } from "./flows/account-deletion.js";
import { sendVerification, verifyEmail } from "./flows/email-verification.js";
import { type CodeSent, sendMagicCode, verifyMagicCode } from "./flows/magic-code.js";
import { type LinkTargets, sendMagicLink, verifyMagicLink } from "./flows/magic-link.js";
import { loginPassword, registerPassword } from "./flows/password.js";
import { sendPhoneCode, verifyPhoneCode } from "./flows/phone-code.js";
import { exportUser, type UserExport } from "./flows/user-export.js";
import { createJWTService, type MintedJWT } from "./jwt/jwt-service.js";
import {
  createUpstreamJWTVerifier,
  type UpstreamJWTConfig,
  upstreamResolver,
} from "./jwt/upstream-jwt.js";
import type { CaptchaVerifier, DevInbox, EmailSettings, SmsTransport } from "./outbound.js";
import { requireRealSession } from "./real-session.js";
import { deriveKey } from "./secrets.js";
import { SessionCache } from "./session-cache.js";
import {
  type ClientInfo,
  deleteSession,
  deleteUserSessions,
  listUserSessions,
  sessionFinder,
} from "./session-store.js";
import { accountTableNames, authMigrations, sessionTableNames } from "./tables.js";
import { createUserDirectory } from "./user-directory.js";
import { checkUserEntity } from "./user-entity.js";

/** The spec's default session lifetime: 30 days. */
export const DEFAULT_SESSION_LIFETIME_SECS = 30 * 24 * 60 * 60;

/** Options of `createAuth`. */
export interface AuthOptions {
  /** The application's store: `User` rows are read and written through it. */
  readonly store: Store;
  /** Where auth-core's own tables live (the store's kysely instance). */
  readonly database: AuthDatabase;
  /**
   * The deployment secret keying the HMACs of one-time codes (at least 32
   * characters). svc's server passes `SVC_AUTH_SECRET`, or the admin token.
   */
  readonly secret: string;
  /** Dev mode: codes may be echoed to loopback callers and go to the dev inbox. Default false. */
  readonly devMode?: boolean;
  /** Default 30 days. */
  readonly sessionLifetimeSecs?: number;
  /** From `parseEmailConfig`; default: no transport (sends fail with `EMAIL_SEND_FAILED`). */
  readonly email?: EmailSettings;
  readonly sms?: SmsTransport;
  /** The CAPTCHA gate of the sign-up endpoints; off when undefined. */
  readonly captcha?: CaptchaVerifier;
  /** JWT exchange (`SVC_JWT_*`); minting answers `JWT_NOT_CONFIGURED` without a secret. */
  readonly jwt?: {
    readonly secret: string | undefined;
    readonly issuer: string | undefined;
    readonly lifetimeSecs?: number;
  };
  /** Accept another issuer's RS256/ES256 tokens by its JWKS (issues none). */
  readonly upstreamJWT?: UpstreamJWTConfig;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

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
  sendPhoneCode(
    body: { phone?: unknown },
    options: { exposeDevCode: boolean },
  ): Promise<{ sent: true; phone: string; dev_code?: string }>;
  verifyPhoneCode(
    body: { phone?: unknown; code?: unknown },
    client: ClientInfo,
  ): Promise<SignInResult>;
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
  /** `GET /api/admin/users/<id>/export` (the router checks the admin token). */
  exportUser(userId: string): Promise<UserExport>;
  /** Writes what is still buffered (API key use times) and stops timers. Call before closing the store. */
  close(): Promise<void>;
  /** Empties auth-core's tables (the dev-mode test reset). */
  reset(): Promise<void>;
}

function requireSession(auth: AuthContext): { userId: string; sessionId: string } {
  if (
    auth.userId === null ||
    auth.sessionId === null ||
    (auth.via !== "session" && auth.via !== "guest")
  ) {
    throw new AuthError("AUTH_REQUIRED");
  }
  return { userId: auth.userId, sessionId: auth.sessionId };
}

/**
 * Creates the auth core over an application store. Checks the app's `User`
 * entity (a `ConfigError` naming the field when it cannot serve sign-in).
 *
 * @example
 * const auth = createAuth({ store, database: { db, dialect }, secret: process.env.SVC_AUTH_SECRET! });
 * await store.migrate({ packages: auth.migrations });
 * const { token } = await auth.createGuest({});
 */
export function createAuth(options: AuthOptions): Auth {
  if (options.secret.length < 32)
    throw new TypeError("createAuth: secret must be at least 32 characters");
  const sessionLifetimeSecs = options.sessionLifetimeSecs ?? DEFAULT_SESSION_LIFETIME_SECS;
  const email: EmailSettings = options.email ?? {
    transport: undefined,
    from: undefined,
    devInbox: undefined,
  };
  const runtime: AuthRuntime = {
    store: options.store,
    database: options.database,
    users: createUserDirectory(options.store, checkUserEntity(options.store.manifest)),
    email,
    sms: options.sms,
    devInbox: email.devInbox,
    devMode: options.devMode ?? false,
    sessionLifetimeMs: sessionLifetimeSecs * 1000,
    codeKey: deriveKey(options.secret, "one-time codes"),
    secondFactor: undefined,
    now: options.now ?? Date.now,
  };
  const tables = () => tablesOf(runtime);
  const findSession = sessionFinder(tables());
  const apiKeys = createApiKeys({
    tables,
    hmacKey: deriveKey(options.secret, "api key secrets"),
    now: runtime.now,
    cache: options.database.dialect === "sqlite",
  });
  const jwt = createJWTService({
    secret: options.jwt?.secret,
    issuer: options.jwt?.issuer,
    ...(options.jwt?.lifetimeSecs !== undefined && { lifetimeSecs: options.jwt.lifetimeSecs }),
    now: runtime.now,
  });
  const upstream =
    options.upstreamJWT === undefined
      ? undefined
      : upstreamResolver(
          createUpstreamJWTVerifier({ ...options.upstreamJWT, now: runtime.now }),
          options.jwt?.issuer,
        );
  const audit = (
    auth: AuthContext,
    kind: AuditKind,
    data: Record<string, unknown> = {},
    ip?: string,
  ): Promise<void> =>
    recordAudit(accountTablesOf(runtime), {
      userId: auth.userId,
      kind,
      at: runtime.now(),
      data,
      ip,
    });
  // Only where this process is the sole writer of the sessions table.
  const cache = options.database.dialect === "sqlite" ? new SessionCache() : undefined;

  return {
    migrations: authMigrations(options.database.schema),
    captcha: options.captcha,
    devInbox: runtime.devInbox,
    sessionLifetimeSecs,
    devMode: runtime.devMode,
    database: options.database,
    async resolveSession(token) {
      const now = runtime.now();
      const cached = cache?.get(token, now);
      const session = cached ?? (await findSession(token, now));
      if (session === null || session.expiresAt <= now) return null;
      if (cached === undefined) cache?.set(token, session, now);
      return createAuthContext({
        userId: session.userId,
        isGuest: session.isGuest,
        via: session.isGuest ? "guest" : "session",
        sessionId: session.id,
      });
    },
    async createGuest(client) {
      // A guest is a user id with no User row and no verified identity.
      const { token, user_id } = await signIn(runtime, {
        userId: generateId(),
        method: "guest",
        isGuest: true,
        client,
      });
      return { token, user_id };
    },
    sendMagicCode: (body, sendOptions) => sendMagicCode(runtime, body, sendOptions),
    verifyMagicCode: (body, client) => verifyMagicCode(runtime, body, client),
    sendMagicLink: (body, linkOptions) => sendMagicLink(runtime, body, linkOptions),
    verifyMagicLink: (body, client) => verifyMagicLink(runtime, body, client),
    registerPassword: (body, client) => registerPassword(runtime, body, client),
    loginPassword: (body, client) => loginPassword(runtime, body, client),
    sendPhoneCode: (body, sendOptions) => sendPhoneCode(runtime, body, sendOptions),
    verifyPhoneCode: (body, client) => verifyPhoneCode(runtime, body, client),
    sendVerification: (auth, sendOptions) => sendVerification(runtime, auth, sendOptions),
    verifyEmail: (auth, body) => verifyEmail(runtime, auth, body),
    async me(auth) {
      if (auth.userId === null) throw new AuthError("AUTH_REQUIRED");
      const user = auth.isGuest ? null : await runtime.users.get(auth.userId).catch(() => null);
      return {
        user_id: auth.userId,
        via: auth.via,
        is_guest: auth.isGuest,
        session_id: auth.sessionId,
        user,
      };
    },
    async revokeSession(auth) {
      const { sessionId } = requireSession(auth);
      await deleteSession(tables(), sessionId);
      cache?.forget(sessionId);
      await audit(auth, "SignOut", { session_id: sessionId });
      return { revoked: true };
    },
    async revokeAllSessions(auth) {
      const { userId } = requireSession(auth);
      const revoked = await deleteUserSessions(tables(), userId);
      cache?.forgetUser(userId);
      await audit(auth, "SessionsRevoke", { sessions: revoked });
      return { revoked };
    },
    async listSessions(auth) {
      const { userId, sessionId } = requireSession(auth);
      const sessions = await listUserSessions(tables(), userId, runtime.now());
      return sessions.map((session) => ({
        id: session.id,
        current: session.id === sessionId,
        guest: session.isGuest,
        created_at: Math.floor(session.createdAt / 1000),
        expires_at: Math.floor(session.expiresAt / 1000),
        user_agent: session.userAgent,
        ip: session.ip,
      }));
    },
    resolveApiKey: (token) => apiKeys.resolve(token),
    async createApiKey(auth, body, ip) {
      const { userId } = requireRealSession(auth);
      const created = await apiKeys.create(userId, body);
      await audit(auth, "ApiKeyCreate", { key_id: created.id, name: created.name }, ip);
      return created;
    },
    listApiKeys: (auth) => apiKeys.list(requireRealSession(auth).userId),
    async revokeApiKey(auth, keyId, ip) {
      const { userId } = requireRealSession(auth);
      if (!(await apiKeys.revoke(userId, keyId))) {
        throw new AuthError("NOT_FOUND", { message: "You have no API key with this id." });
      }
      await audit(auth, "ApiKeyRevoke", { key_id: keyId }, ip);
      return { revoked: true };
    },
    async mintJWT(auth, ip) {
      const { userId } = requireRealSession(auth);
      const minted = jwt.mint({ userId, tenantId: auth.tenantId, roles: auth.roles });
      await audit(auth, "JwtMint", { expires_at: minted.expires_at }, ip);
      return minted;
    },
    jwtResolvers: () => (upstream === undefined ? [jwt.resolver()] : [upstream, jwt.resolver()]),
    async deleteAccount(auth, ip) {
      const result = await deleteAccount(runtime, apiKeys, auth, ip);
      // Only now, after the commit: a rolled-back deletion keeps everything.
      if (auth.userId !== null) {
        cache?.forgetUser(auth.userId);
        apiKeys.forgetUser(auth.userId);
      }
      return result;
    },
    async listAudit(auth, query) {
      if (auth.isAdmin) {
        if (query.user_id !== undefined && typeof query.user_id !== "string") {
          throw new AuthError("INVALID_QUERY", { message: "user_id must be a string." });
        }
        return listAudit(accountTablesOf(runtime), { ...query, userId: query.user_id });
      }
      if (auth.userId === null) throw new AuthError("AUTH_REQUIRED");
      return listAudit(accountTablesOf(runtime), { ...query, userId: auth.userId });
    },
    exportUser: (userId) => exportUser(runtime, apiKeys, userId),
    close: () => apiKeys.close(),
    async reset() {
      for (const table of sessionTableNames) await tables().deleteFrom(table).execute();
      for (const table of accountTableNames) {
        await accountTablesOf(runtime).deleteFrom(table).execute();
      }
      cache?.clear();
    },
  };
}
