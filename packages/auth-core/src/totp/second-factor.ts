import type { SecondFactorRequired, SignIn } from "../auth-runtime.js";
import { rateLimited } from "../errors.js";
import type { ClientInfo } from "../session-store.js";
import { consumeChallenge, countWrongAnswer, findChallenge, issueChallenge } from "./challenges.js";
import { readFactor, spendFactor } from "./spend-factor.js";
import { totpError } from "./totp-errors.js";
import {
  readTotp,
  recordTotpAudit,
  sessionTablesOf,
  type TotpRuntime,
  totpTablesOf,
} from "./totp-runtime.js";
import { isTrustedDevice, trustDevice } from "./trusted-devices.js";

/** What `POST /api/auth/totp/verify` accepts. */
export interface VerifyChallengeBody {
  readonly challenge?: unknown;
  /** An authenticator code (a backup code is accepted here too). */
  readonly code?: unknown;
  readonly backup_code?: unknown;
  /** `true`: trust this device for 30 days (skip the second factor on it). */
  readonly trust_device?: unknown;
}

/** A finished second-factor sign-in: the session, plus the trusted-device token when one was asked for. */
export type SecondFactorSignIn = SignIn & {
  readonly trusted_device?: {
    /** Sent back as cookie `svc_trusted_device` or header `X-Svc-Trusted-Device`. */
    readonly token: string;
    /** Unix seconds. */
    readonly expires_at: number;
  };
};

/**
 * The gate's check after a first factor passed: null when the user has no
 * TOTP or presents a live trusted-device token of their own; otherwise a
 * new single-use challenge (10 minutes, `MAX_ATTEMPTS` wrong codes).
 */
export async function challengeSignIn(
  runtime: TotpRuntime,
  userId: string,
  client: ClientInfo,
): Promise<SecondFactorRequired | null> {
  const row = await readTotp(totpTablesOf(runtime), userId);
  if (row === undefined || row.enabled_at === null) return null;
  const now = runtime.now();
  const token = client.trustedDevice;
  if (
    token !== undefined &&
    (await isTrustedDevice(sessionTablesOf(runtime), { userId, token, now }))
  ) {
    return null;
  }
  const challenge = await issueChallenge(totpTablesOf(runtime), {
    key: runtime.codeKey,
    userId,
    now,
  });
  return { second_factor_required: true, challenge, methods: ["totp", "backup_code"] };
}

/**
 * `POST /api/auth/totp/verify`: finishes a sign-in that answered
 * `second_factor_required`. Checks the challenge (401 `INVALID_CHALLENGE`
 * when missing, unknown, expired or used), then the code: an authenticator
 * code not used before, or an unused backup code (401 `INVALID_TOTP`; after
 * `MAX_ATTEMPTS` wrong codes the challenge is burned, 429 `RATE_LIMITED`).
 * The challenge and the factor are spent, the session is created and, with
 * `trust_device: true`, the device trusted for 30 days, in one transaction.
 */
export async function verifyChallenge(
  runtime: TotpRuntime,
  body: VerifyChallengeBody,
  client: ClientInfo,
): Promise<SecondFactorSignIn> {
  const now = runtime.now();
  const tables = totpTablesOf(runtime);
  const found = await findChallenge(tables, { key: runtime.codeKey, token: body.challenge, now });
  if (found.state === "invalid") throw totpError("INVALID_CHALLENGE");
  if (found.state === "burned") {
    throw rateLimited(1, "Too many wrong codes for this sign-in; sign in again.");
  }
  const { id, user_id: userId } = found.row;
  const factor = readFactor(body);
  const row = await readTotp(tables, userId);
  // TOTP was turned off since the challenge was issued.
  if (row === undefined || row.enabled_at === null) throw totpError("INVALID_CHALLENGE");
  // The session and the trusted device are made in the transaction that
  // spends the challenge: a claim of the account (flows/address-proof.ts),
  // which deletes the challenges before the sessions, never misses them.
  const passed = await runtime.database.db.transaction().execute(async (trx) => {
    const inTrx = totpTablesOf(runtime, trx);
    if (!(await spendFactor(runtime, inTrx, { row, factor, now }))) return null;
    // Spent, burned or expired meanwhile: the rollback gives the factor back.
    if (!(await consumeChallenge(inTrx, id, now))) throw totpError("INVALID_CHALLENGE");
    const session = await runtime.createSession(userId, client, trx);
    const trusted =
      body.trust_device === true
        ? await trustDevice(sessionTablesOf(runtime, trx), {
            userId,
            now,
            userAgent: client.userAgent,
          })
        : undefined;
    await recordTotpAudit(runtime, {
      userId,
      kind: "SecondFactor",
      data: { method: factor.method, trusted_device: trusted !== undefined },
      ip: client.ip,
      db: trx,
    });
    return { session, trusted };
  });
  if (passed === null) {
    await countWrongAnswer(tables, id);
    throw totpError("INVALID_TOTP");
  }
  const { session, trusted } = passed;
  if (trusted === undefined) return session;
  return {
    ...session,
    trusted_device: { token: trusted.token, expires_at: Math.floor(trusted.expiresAt / 1000) },
  };
}
