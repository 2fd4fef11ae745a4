import type { EntityTables, Store } from "@svc/store";
import type { Kysely } from "kysely";
import { recordAudit } from "./audit.js";
import { type AuthDatabase, accountTables, authTables } from "./auth-database.js";
import { type CodePurpose, issueCode } from "./code-store.js";
import { AuthError, rateLimited } from "./errors.js";
import type { DevInbox, EmailSettings, SmsTransport } from "./outbound.js";
import type { RevocationReason } from "./revocations.js";
import { hmacHex } from "./secrets.js";
import { type ClientInfo, insertSession } from "./session-store.js";
import type { AuthTables } from "./tables.js";
import type { UserDirectory } from "./user-directory.js";

/**
 * What a sign-in answers instead of a session when the user has a second
 * factor and the device is not trusted: finish with `POST /api/auth/totp/verify`.
 */
export interface SecondFactorRequired {
  readonly second_factor_required: true;
  /** Opaque, single-use, valid for 10 minutes. */
  readonly challenge: string;
  readonly methods: readonly ("totp" | "backup_code")[];
}

/** A sign-in's answer: a session, or the second-factor challenge. */
export type SignInResult = SignIn | SecondFactorRequired;

/**
 * The seam through which the second factor (TOTP) joins sign-in: asked after
 * the first factor passed and before a session exists.
 */
export interface SecondFactorGate {
  /** A challenge when `userId` must pass a second factor on this device; null otherwise. */
  challenge(userId: string, client: ClientInfo): Promise<SecondFactorRequired | null>;
}

/**
 * The credential stores built beside the runtime, as the flows that must
 * revoke a user's credentials inside their own transaction see them.
 */
export interface UserCredentials {
  /** Deletes every API key of the user through `db` (a transaction); resolves with how many. */
  deleteApiKeys(db: Kysely<AuthTables>, userId: string): Promise<number>;
  /** Removes the user's TOTP secret, backup codes, challenges and trusted devices through `db`. */
  deleteSecondFactor(
    db: Kysely<EntityTables>,
    userId: string,
  ): Promise<{ readonly secret: boolean; readonly trustedDevices: number }>;
  /**
   * Call after the commit of a change that revoked or altered the user's
   * credentials: drops this process's cached sessions and API keys of the
   * user and records the change in the revocation journal, so open live
   * connections of the user are re-checked on every server.
   */
  forgetUser(userId: string, reason: RevocationReason): Promise<void>;
}

/** What every sign-in flow shares; built once by `createAuth`. */
export interface AuthRuntime {
  readonly store: Store;
  readonly database: AuthDatabase;
  readonly users: UserDirectory;
  readonly email: EmailSettings;
  readonly sms: SmsTransport | undefined;
  readonly devInbox: DevInbox | undefined;
  readonly devMode: boolean;
  readonly sessionLifetimeMs: number;
  /** The second-factor check of first-factor sign-ins; none when undefined. */
  secondFactor: SecondFactorGate | undefined;
  readonly credentials: UserCredentials;
  /** Keys the HMAC of one-time codes, so a leaked codes table yields no code. */
  readonly codeKey: Buffer;
  now(): number;
}

/** The JSON a sign-in answers: the token (once), the user and when the session ends. */
export interface SignIn {
  readonly token: string;
  readonly user_id: string;
  /** Unix seconds. */
  readonly expires_at: number;
}

/** The session-store tables through `db` (default: outside any transaction). */
export function tablesOf(runtime: AuthRuntime, db?: Kysely<EntityTables>): Kysely<AuthTables> {
  return authTables(runtime.database, db);
}

/** The account tables (password hashes) through `db`, always in the application database. */
export function accountTablesOf(
  runtime: AuthRuntime,
  db?: Kysely<EntityTables>,
): Kysely<AuthTables> {
  return accountTables(runtime.database, db);
}

/** The HMAC a one-time code is stored and compared as, bound to its purpose and subject. */
export function codeHash(
  runtime: AuthRuntime,
  purpose: string,
  subject: string,
  code: string,
): string {
  return hmacHex(runtime.codeKey, purpose, subject, code);
}

/**
 * Ends a first-factor sign-in (magic code or link, password, phone code):
 * the second-factor challenge when the user needs one here, else a session.
 */
export async function completeSignIn(
  runtime: AuthRuntime,
  input: {
    userId: string;
    method: SignInMethod;
    client: ClientInfo;
    /** The user was created by this sign-in: the session's event is `SignUp`. */
    signUp?: boolean;
    /** Extra audit fields, e.g. `{ provider: "github" }`. */
    detail?: Readonly<Record<string, string>>;
  },
): Promise<SignInResult> {
  const challenge = await runtime.secondFactor?.challenge(input.userId, input.client);
  return challenge ?? signIn(runtime, input);
}

/** How a session came to be, as its audit event records it. */
export type SignInMethod =
  | "second-factor"
  | "guest"
  | "magic-code"
  | "magic-link"
  | "password"
  | "password-reset"
  | "sign-up"
  | "phone-code"
  | "oauth";

/**
 * Creates a session, writes its audit event (`SignIn`, `SignUp` or
 * `GuestSession`) and shapes the sign-in answer. With `db` both go through
 * that transaction.
 */
export async function signIn(
  runtime: AuthRuntime,
  input: {
    userId: string;
    method: SignInMethod;
    isGuest?: boolean;
    client?: ClientInfo | undefined;
    db?: Kysely<EntityTables>;
    /** Record `SignUp` instead of `SignIn` (the user was just created). */
    signUp?: boolean;
    /** Extra audit fields. */
    detail?: Readonly<Record<string, string>>;
  },
): Promise<SignIn> {
  const { token, session } = await insertSession(tablesOf(runtime, input.db), {
    userId: input.userId,
    isGuest: input.isGuest ?? false,
    now: runtime.now(),
    lifetimeMs: runtime.sessionLifetimeMs,
    client: input.client,
  });
  await recordAudit(accountTablesOf(runtime, input.db), {
    userId: input.userId,
    kind:
      input.method === "guest"
        ? "GuestSession"
        : input.method === "sign-up" || input.signUp === true
          ? "SignUp"
          : "SignIn",
    at: runtime.now(),
    data: { method: input.method, ...input.detail, session_id: session.id },
    ip: input.client?.ip,
  });
  return { token, user_id: session.userId, expires_at: Math.floor(session.expiresAt / 1000) };
}

/**
 * Sends an email through the configured transport, or the dev inbox in dev
 * mode. With neither, the send fails with `EMAIL_SEND_FAILED` (the boot
 * already warned).
 */
export async function deliverEmail(
  runtime: AuthRuntime,
  to: string,
  content: { subject: string; body: string },
): Promise<void> {
  const transport = runtime.email.transport ?? runtime.devInbox;
  if (transport === undefined) {
    throw new AuthError("EMAIL_SEND_FAILED", {
      cause: new Error("no email transport is configured (SVC_EMAIL_PROVIDER)"),
    });
  }
  await transport.send({ to, from: runtime.email.from ?? "svc <no-reply@localhost>", ...content });
}

/**
 * Issues a one-time secret for `(purpose, subject)` and delivers it. The
 * cooldown (one send per subject per 60 s) is checked and taken in one
 * statement; when delivery fails, the previous secret and cooldown are
 * restored, so the user can retry at once, and the failure is
 * `EMAIL_SEND_FAILED` (or `SMS_SEND_FAILED`), 500.
 */
export async function issueAndDeliver(
  runtime: AuthRuntime,
  input: {
    purpose: CodePurpose;
    subject: string;
    secret: string;
    deliver: () => Promise<void>;
    /** The 429 message while the cooldown runs. */
    cooldownMessage: string;
    /** The code of a failed delivery. Default `EMAIL_SEND_FAILED`. */
    failure?: "EMAIL_SEND_FAILED" | "SMS_SEND_FAILED";
  },
): Promise<void> {
  const issued = await issueCode(tablesOf(runtime), {
    purpose: input.purpose,
    subject: input.subject,
    codeHash: codeHash(runtime, input.purpose, input.subject, input.secret),
    now: runtime.now(),
  });
  if (!issued.issued) throw rateLimited(issued.retryAfterMs / 1000, input.cooldownMessage);
  try {
    await input.deliver();
  } catch (error) {
    await issued.revert();
    throw error instanceof AuthError
      ? error
      : new AuthError(input.failure ?? "EMAIL_SEND_FAILED", { cause: error });
  }
}
