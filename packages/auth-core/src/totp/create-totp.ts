import type { AuthContext } from "@svc/schema";
import type { EntityTables } from "@svc/store";
import type { Kysely } from "kysely";
import type { AuthDatabase } from "../auth-database.js";
import type { SecondFactorGate, SignIn } from "../auth-runtime.js";
import { AuthError } from "../errors.js";
import { requireRealSession } from "../real-session.js";
import { deriveKey } from "../secrets.js";
import type { ClientInfo } from "../session-store.js";
import {
  confirm,
  deleteTotpForUser,
  disable,
  enroll,
  status,
  type TotpEnabled,
  type TotpEnrollment,
  type TotpRemoved,
  type TotpStatus,
} from "./enrollment.js";
import {
  challengeSignIn,
  type SecondFactorSignIn,
  type VerifyChallengeBody,
  verifyChallenge,
} from "./second-factor.js";
import { recordTotpAudit, sessionTablesOf, type TotpRuntime } from "./totp-runtime.js";
import { listTrustedDevices, revokeTrustedDevice, type TrustedDevice } from "./trusted-devices.js";

/** Options of `createTotp`. */
export interface TotpOptions {
  /** Where auth-core's tables are (the same value `createAuth` got). */
  readonly database: AuthDatabase;
  /**
   * The deployment secret (`SVC_AUTH_SECRET`, at least 32 characters). Keys
   * the AES-256-GCM encryption of stored TOTP secrets and the HMAC of backup
   * codes and challenges; changing it makes enrolled secrets unreadable.
   */
  readonly secret: string;
  /** Unix milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /** The name authenticator apps show beside the account, e.g. the manifest's name. */
  readonly issuer: string;
  /**
   * Creates the session a passed second factor ends with (auth-core's
   * `signIn`). `verifyChallenge` passes `db`, the transaction that spends
   * the challenge: write through it (on SQLite a write outside it waits for
   * that transaction forever).
   */
  readonly createSession: (
    userId: string,
    client: ClientInfo,
    db?: Kysely<EntityTables>,
  ) => Promise<SignIn>;
  /** The account label authenticator apps show (the user's email); the user id when null. */
  readonly emailOf: (userId: string) => Promise<string | null>;
}

/** TOTP second factor of auth-core: enrolment, sign-in challenges, trusted devices. */
export interface Totp {
  /** Hand to auth-core as its second-factor gate. */
  readonly gate: SecondFactorGate;
  /** The clock of this instance (unix milliseconds). */
  now(): number;
  /** `GET /api/auth/totp`. Needs a real session, as every call taking `auth` does. */
  status(auth: AuthContext): Promise<TotpStatus>;
  /** `POST /api/auth/totp/enroll`: a pending secret and its `otpauth://` URI. */
  enroll(auth: AuthContext): Promise<TotpEnrollment>;
  /** `POST /api/auth/totp/confirm` `{code}`: turns TOTP on; answers the backup codes once. */
  confirm(auth: AuthContext, body: { code?: unknown }, ip?: string): Promise<TotpEnabled>;
  /** `POST /api/auth/totp/disable` `{code}` (authenticator or backup code): turns TOTP off. */
  disable(
    auth: AuthContext,
    body: { code?: unknown; backup_code?: unknown },
    ip?: string,
  ): Promise<{ disabled: true }>;
  /** `POST /api/auth/totp/verify`: finishes a challenged sign-in with a session. */
  verifyChallenge(body: VerifyChallengeBody, client: ClientInfo): Promise<SecondFactorSignIn>;
  /** `GET /api/auth/trusted-devices`: the caller's live trusted devices, newest first. */
  listDevices(auth: AuthContext): Promise<TrustedDevice[]>;
  /** `DELETE /api/auth/trusted-devices/:id`; another user's or an unknown id is 404 `NOT_FOUND`. */
  revokeDevice(auth: AuthContext, id: string, ip?: string): Promise<{ revoked: true }>;
  /**
   * Removes a user's secret, backup codes, challenges and trusted devices
   * through `db` (a transaction), for account deletion.
   */
  deleteForUser(db: Kysely<EntityTables>, userId: string): Promise<TotpRemoved>;
}

const MIN_SECRET_LENGTH = 32;

/**
 * Builds the TOTP second factor (RFC 6238: SHA-1, 6 digits, 30 s, one step
 * of drift either way). Secrets are stored AES-256-GCM encrypted, backup
 * codes and challenges only as HMACs, trusted-device tokens as SHA-256.
 * Its tables come from `totpMigrations()`.
 *
 * @example
 * const totp = createTotp({
 *   database,
 *   secret: config.secret,
 *   issuer: manifest.name,
 *   createSession: (userId, client) => startSession(userId, client),
 *   emailOf: async (userId) => (await users.get(userId))?.email ?? null,
 * });
 * await store.migrate({ packages: [...auth.migrations, totpMigrations()] });
 */
export function createTotp(options: TotpOptions): Totp {
  if (options.secret.length < MIN_SECRET_LENGTH) {
    throw new TypeError(`createTotp: secret must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  const runtime: TotpRuntime = {
    database: options.database,
    secretKey: deriveKey(options.secret, "totp secrets"),
    codeKey: deriveKey(options.secret, "totp codes"),
    issuer: options.issuer,
    now: options.now ?? Date.now,
    createSession: options.createSession,
    emailOf: options.emailOf,
  };
  return {
    gate: { challenge: (userId, client) => challengeSignIn(runtime, userId, client) },
    now: () => runtime.now(),
    status: (auth) => status(runtime, auth),
    enroll: (auth) => enroll(runtime, auth),
    confirm: (auth, body, ip) => confirm(runtime, auth, body, ip),
    disable: (auth, body, ip) => disable(runtime, auth, body, ip),
    verifyChallenge: (body, client) => verifyChallenge(runtime, body, client),
    listDevices: async (auth) =>
      listTrustedDevices(sessionTablesOf(runtime), requireRealSession(auth).userId, runtime.now()),
    async revokeDevice(auth, id, ip) {
      const { userId } = requireRealSession(auth);
      if (!(await revokeTrustedDevice(sessionTablesOf(runtime), userId, id))) {
        throw new AuthError("NOT_FOUND", { message: "You have no trusted device with this id." });
      }
      await recordTotpAudit(runtime, { userId, kind: "TrustedDeviceRevoke", data: { id }, ip });
      return { revoked: true };
    },
    deleteForUser: (db, userId) => deleteTotpForUser(runtime, db, userId),
  };
}
