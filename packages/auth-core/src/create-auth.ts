import { type AuthContext, adminAuth, createAuthContext, generateId } from "@svc/schema";
import { createMembershipLookup, dialectFor, type EntityTables, type Store } from "@svc/store";
import type { Kysely } from "kysely";
import { createApiKeys } from "./api-keys.js";
import { type AuditKind, listAudit, operatorAuditKinds, recordAudit } from "./audit.js";
import type { Auth } from "./auth.js";
import { type AuthDatabase, authTables } from "./auth-database.js";
import { type AuthRuntime, accountTablesOf, signIn, tablesOf } from "./auth-runtime.js";
import { AuthError } from "./errors.js";
import { deleteAccount } from "./flows/account-deletion.js";
import { sendVerification, verifyEmail } from "./flows/email-verification.js";
import { signInWithIdentity } from "./flows/external-identity.js";
import { sendMagicCode, verifyMagicCode } from "./flows/magic-code.js";
import { sendMagicLink, verifyMagicLink } from "./flows/magic-link.js";
import { loginPassword, registerPassword } from "./flows/password.js";
import { changePassword } from "./flows/password-change.js";
import { resetPassword, sendPasswordReset } from "./flows/password-reset.js";
import { sendPhoneCode, verifyPhoneCode } from "./flows/phone-code.js";
import { exportUser } from "./flows/user-export.js";
import { createJWTService } from "./jwt/jwt-service.js";
import {
  createUpstreamJWTVerifier,
  type UpstreamJWTConfig,
  upstreamResolver,
} from "./jwt/upstream-jwt.js";
import type { CaptchaVerifier, EmailSettings, SmsTransport } from "./outbound.js";
import { requireRealSession } from "./real-session.js";
import {
  createRevocationJournal,
  DEFAULT_REVOCATION_POLL_MS,
  DEFAULT_SHARED_REVOCATION_POLL_MS,
  DEFAULT_SIGNALLED_REVOCATION_POLL_MS,
  type RevocationSignal,
} from "./revocations.js";
import { deriveKey } from "./secrets.js";
import { SessionCache } from "./session-cache.js";
import {
  deleteSession,
  deleteUserSessions,
  listUserSessions,
  lockLiveSession,
  sessionFinder,
  setActiveOrg,
} from "./session-store.js";
import { accountTableNames, authMigrations, sessionTableNames } from "./tables.js";
import { createTotp } from "./totp/create-totp.js";
import { type TotpTables, totpMigrations, totpTableNames } from "./totp/totp-tables.js";
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
  /**
   * How often other servers' revocations are read from the journal (they
   * drop cached sessions and keys, and reach `onRevoked` listeners).
   * Default 50 ms on Postgres, 250 ms on SQLite.
   */
  readonly revocationPollMs?: number;
  /**
   * Rung after each revocation and heard from other servers, so theirs
   * arrive in about one round trip (`createPgSignal` of `@svc/store/pg` on
   * Postgres). With it the journal is polled every second by default, to
   * cover what a lost signal connection missed.
   */
  readonly revocationSignal?: RevocationSignal;
  /**
   * Receives failures no caller sees (a revocation journal read, the
   * buffered write of API key use times). Default `console.error`.
   */
  readonly logError?: (message: string, error: unknown) => void;
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

/** Logs a failing journal read once a minute at most (a poll runs every 50 ms). */
function journalErrorReporter(
  logError: (message: string, error: unknown) => void,
): (error: unknown) => void {
  let lastReport = Number.NEGATIVE_INFINITY;
  return (error) => {
    const now = Date.now();
    if (now - lastReport < 60_000) return;
    lastReport = now;
    logError("auth: reading the revocation journal failed (cached sessions dropped)", error);
  };
}

/** How often the journal is read when `revocationPollMs` does not say. */
function defaultRevocationPollMs(options: AuthOptions): number {
  // The signal carries other servers' revocations; the poll only catches up.
  if (options.revocationSignal !== undefined) return DEFAULT_SIGNALLED_REVOCATION_POLL_MS;
  // Other servers on a shared database revoke too: poll them sooner.
  return dialectFor(options.database.dialect).concurrentWriters
    ? DEFAULT_SHARED_REVOCATION_POLL_MS
    : DEFAULT_REVOCATION_POLL_MS;
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
  const logError =
    options.logError ??
    ((message: string, error: unknown) => console.error(`svc: ${message}:`, error));
  const email: EmailSettings = options.email ?? {
    transport: undefined,
    from: undefined,
    devInbox: undefined,
  };
  const now = options.now ?? Date.now;
  const tables = () => authTables(options.database);
  // Resolved sessions and keys are cached on every database: this process's
  // revocations drop their entries at once, other servers' within one poll
  // of the revocation journal (below), and entries live a second at most.
  const cache = new SessionCache();
  const apiKeys = createApiKeys({
    onFlushError: (error) => logError("auth: could not record API key use", error),
    tables,
    hmacKey: deriveKey(options.secret, "api key secrets"),
    now,
    cache: true,
  });
  const reportJournalError = journalErrorReporter(logError);
  const revocations = createRevocationJournal({
    tables,
    now,
    pollMs: options.revocationPollMs ?? defaultRevocationPollMs(options),
    ...(options.revocationSignal !== undefined && { signal: options.revocationSignal }),
    onError(error) {
      // What other servers revoked meanwhile is unknown: trust nothing cached.
      cache.clear();
      apiKeys.forgetAll();
      reportJournalError(error);
    },
  });
  // Another server's revocation drops this process's cached entries of the
  // user. Started by the first resolution (after the tables exist), not here.
  let stopForgetting: (() => void) | undefined;
  const watchRevocations = (): void => {
    stopForgetting ??= revocations.onRevoked(({ userId, reason, local }) => {
      // Entitlements are cached by billing, not here: sessions stay.
      if (local || reason === "entitlements-changed") return;
      cache.forgetUser(userId);
      apiKeys.forgetUser(userId);
    });
  };
  const totp = createTotp({
    database: options.database,
    secret: options.secret,
    now,
    issuer: options.store.manifest.name,
    createSession: (userId, client, db) =>
      signIn(runtime, { userId, method: "second-factor", client, ...(db !== undefined && { db }) }),
    emailOf: async (userId) => {
      if (!runtime.users.exists()) return null;
      const user = await runtime.users.get(userId);
      return typeof user?.email === "string" ? user.email : null;
    },
  });
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
    secondFactor: totp.gate,
    credentials: {
      deleteApiKeys: (db, userId) => apiKeys.deleteForUser(db, userId),
      deleteSecondFactor: (db, userId) => totp.deleteForUser(db, userId),
      async forgetUser(userId, reason) {
        cache.forgetUser(userId);
        apiKeys.forgetUser(userId);
        await revocations.announce(userId, reason);
      },
    },
    now,
  };
  /**
   * Runs `work` in a transaction after checking (and on Postgres locking)
   * the caller's session there: what a request makes under its session must
   * not outlive a revocation that committed while the request ran
   * (`lockLiveSession`). A revoked session is 401 `INVALID_TOKEN`, as on
   * the next request.
   */
  const underLiveSession = <T>(
    sessionId: string,
    work: (db: Kysely<EntityTables>) => Promise<T>,
  ): Promise<T> =>
    options.database.db.transaction().execute(async (trx) => {
      const live = await lockLiveSession(tablesOf(runtime, trx), {
        id: sessionId,
        now: runtime.now(),
        dialect: options.database.dialect,
      });
      if (!live) throw new AuthError("INVALID_TOKEN");
      return work(trx);
    });
  const findSession = sessionFinder(tables());
  const memberships = createMembershipLookup(options.store);
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

  return {
    migrations: [...authMigrations(options.database.schema), totpMigrations()],
    totp,
    captcha: options.captcha,
    devInbox: runtime.devInbox,
    sessionLifetimeSecs,
    devMode: runtime.devMode,
    database: options.database,
    async resolveSession(token) {
      watchRevocations();
      const now = runtime.now();
      const cached = cache.get(token, now);
      const session = cached ?? (await findSession(token, now));
      if (session === null || session.expiresAt <= now) return null;
      if (cached === undefined) cache.set(token, session, now);
      // Roles are read at every resolution, so a membership change applies
      // at once; a session that selected no organization costs no lookup.
      const roles =
        session.activeOrgId === null
          ? null
          : await memberships.rolesOf(session.activeOrgId, session.userId);
      return createAuthContext({
        userId: session.userId,
        isGuest: session.isGuest,
        via: session.isGuest ? "guest" : "session",
        sessionId: session.id,
        ...(roles !== null && { tenantId: session.activeOrgId, roles: Object.freeze(roles) }),
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
    signInWithIdentity: (identity, client) => signInWithIdentity(runtime, identity, client),
    sendMagicLink: (body, linkOptions) => sendMagicLink(runtime, body, linkOptions),
    verifyMagicLink: (body, client) => verifyMagicLink(runtime, body, client),
    registerPassword: (body, client) => registerPassword(runtime, body, client),
    loginPassword: (body, client) => loginPassword(runtime, body, client),
    sendPasswordReset: (body, sendOptions) => sendPasswordReset(runtime, body, sendOptions),
    resetPassword: (body, client) => resetPassword(runtime, body, client),
    changePassword: (auth, body, ip) => changePassword(runtime, auth, body, ip),
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
      const { userId, sessionId } = requireSession(auth);
      await deleteSession(tables(), sessionId);
      cache.forget(sessionId);
      await revocations.announce(userId, "sign-out");
      await audit(auth, "SignOut", { session_id: sessionId });
      return { revoked: true };
    },
    async revokeAllSessions(auth) {
      const { userId } = requireSession(auth);
      const revoked = await deleteUserSessions(tables(), userId);
      cache.forgetUser(userId);
      await revocations.announce(userId, "sessions-revoked");
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
    resolveApiKey(token) {
      watchRevocations();
      return apiKeys.resolve(token);
    },
    async createApiKey(auth, body, ip) {
      const { userId, sessionId } = requireRealSession(auth);
      return underLiveSession(sessionId, async (db) => {
        const created = await apiKeys.create(userId, body, tablesOf(runtime, db));
        await recordAudit(accountTablesOf(runtime, db), {
          userId,
          kind: "ApiKeyCreate",
          at: runtime.now(),
          data: { key_id: created.id, name: created.name },
          ip,
        });
        return created;
      });
    },
    async listApiKeys(auth) {
      return apiKeys.list(requireRealSession(auth).userId);
    },
    async revokeApiKey(auth, keyId, ip) {
      const { userId } = requireRealSession(auth);
      if (!(await apiKeys.revoke(userId, keyId))) {
        throw new AuthError("NOT_FOUND", { message: "You have no API key with this id." });
      }
      await revocations.announce(userId, "api-key-revoked");
      await audit(auth, "ApiKeyRevoke", { key_id: keyId }, ip);
      return { revoked: true };
    },
    async mintJWT(auth, ip) {
      const { userId, sessionId } = requireRealSession(auth);
      const minted = jwt.mint({ userId, tenantId: auth.tenantId, roles: auth.roles });
      // A JWT cannot be revoked: it is handed out only if the session was
      // still live when its audit event committed.
      await underLiveSession(sessionId, (db) =>
        recordAudit(accountTablesOf(runtime, db), {
          userId,
          kind: "JwtMint",
          at: runtime.now(),
          data: { expires_at: minted.expires_at },
          ip,
        }),
      );
      return minted;
    },
    jwtResolvers: () => (upstream === undefined ? [jwt.resolver()] : [upstream, jwt.resolver()]),
    async selectOrg(auth, body, ip) {
      const { userId, sessionId } = requireRealSession(auth);
      const orgId = body.orgId;
      if (orgId !== null && (typeof orgId !== "string" || orgId === "" || orgId.length > 256)) {
        throw new AuthError("INVALID_ORG");
      }
      let roles: string[] = [];
      if (orgId !== null) {
        if (!memberships.available) throw new AuthError("MEMBERSHIP_UNAVAILABLE");
        const held = await memberships.rolesOf(orgId, userId);
        if (held === null) throw new AuthError("NOT_A_MEMBER");
        roles = held;
      }
      await setActiveOrg(tables(), sessionId, orgId);
      cache.forget(sessionId);
      await revocations.announce(userId, "org-selected");
      await audit(auth, "OrgSelect", { org_id: orgId }, ip);
      return { org_id: orgId, roles };
    },
    async resetTotp(userId, ip) {
      const removed = await options.store.frameworkTransaction(adminAuth, (tx) =>
        totp.deleteForUser(tx.db, userId),
      );
      await recordAudit(accountTablesOf(runtime), {
        userId,
        kind: "TotpDisable",
        at: runtime.now(),
        data: { method: "admin", trusted_devices: removed.trustedDevices },
        ip,
      });
      return { reset: true };
    },
    async deleteAccount(auth, ip) {
      const result = await deleteAccount(runtime, { apiKeys, totp }, auth, ip);
      // Only now, after the commit: a rolled-back deletion keeps everything.
      if (auth.userId !== null)
        await runtime.credentials.forgetUser(auth.userId, "account-deleted");
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
    async recordOperatorAudit(event, db) {
      if (!(operatorAuditKinds as readonly string[]).includes(event.kind)) {
        throw new TypeError(
          `recordOperatorAudit: ${String(event.kind)} is not an operator audit kind.`,
        );
      }
      await recordAudit(accountTablesOf(runtime, db), {
        userId: null,
        kind: event.kind,
        at: runtime.now(),
        data: event.data,
        ip: event.ip,
      });
    },
    exportUser: (userId) => exportUser(runtime, apiKeys, userId),
    onRevoked: (listener) => {
      // Cached entries are dropped first, so a listener that resolves the
      // user's credentials again (a live connection's re-check) reads the
      // database, not the entry the revocation just made stale.
      watchRevocations();
      return revocations.onRevoked(listener);
    },
    announceCallerChange: (userId, reason) => revocations.announce(userId, reason),
    cacheStats: () => ({ session: cache.stats(), apiKey: apiKeys.stats() }),
    close: () => {
      stopForgetting?.();
      revocations.close();
      return apiKeys.close();
    },
    async reset() {
      for (const table of sessionTableNames) await tables().deleteFrom(table).execute();
      for (const table of accountTableNames) {
        await accountTablesOf(runtime).deleteFrom(table).execute();
      }
      const totpTables = options.database.db as unknown as Kysely<TotpTables>;
      for (const table of totpTableNames) await totpTables.deleteFrom(table).execute();
      cache.clear();
    },
  };
}
