import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { MAX_ATTEMPTS } from "../code-store.js";
import { hmacHex } from "../secrets.js";
import type { TotpChallengesTable, TotpTables } from "./totp-tables.js";

/** How long a second-factor challenge stays valid. */
export const CHALLENGE_TTL_MS = 10 * 60 * 1000;

const CHALLENGE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** The row id of a challenge token: its HMAC, so the table alone yields no challenge. */
export function challengeId(key: Buffer, token: string): string {
  return hmacHex(key, "2fa", token);
}

/**
 * Issues a single-use challenge for `userId`: 256 random bits, base64url,
 * valid `CHALLENGE_TTL_MS`. Expired challenges (anyone's) are removed on the way.
 */
export async function issueChallenge(
  db: Kysely<TotpTables>,
  input: { key: Buffer; userId: string; now: number },
): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  await db.deleteFrom("svc_totp_challenges").where("expires_at", "<=", input.now).execute();
  await db
    .insertInto("svc_totp_challenges")
    .values({
      id: challengeId(input.key, token),
      user_id: input.userId,
      created_at: input.now,
      expires_at: input.now + CHALLENGE_TTL_MS,
      attempts: 0,
      consumed_at: null,
    })
    .execute();
  return token;
}

/** What a presented challenge is. */
export type ChallengeState =
  | { readonly state: "open"; readonly row: TotpChallengesTable }
  /** Missing, malformed, unknown, expired or used. */
  | { readonly state: "invalid" }
  /** `MAX_ATTEMPTS` wrong codes were tried against it. */
  | { readonly state: "burned" };

/** Looks a presented challenge up. */
export async function findChallenge(
  db: Kysely<TotpTables>,
  input: { key: Buffer; token: unknown; now: number },
): Promise<ChallengeState> {
  if (typeof input.token !== "string" || !CHALLENGE_SHAPE.test(input.token)) {
    return { state: "invalid" };
  }
  const row = await db
    .selectFrom("svc_totp_challenges")
    .selectAll()
    .where("id", "=", challengeId(input.key, input.token))
    .executeTakeFirst();
  if (row === undefined || row.consumed_at !== null || Number(row.expires_at) <= input.now) {
    return { state: "invalid" };
  }
  if (Number(row.attempts) >= MAX_ATTEMPTS) return { state: "burned" };
  return { state: "open", row };
}

/**
 * Spends an open challenge, once: a conditional update, so two concurrent
 * right answers cannot both win. False when it was spent, burned or expired
 * meanwhile.
 */
export async function consumeChallenge(
  db: Kysely<TotpTables>,
  id: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable("svc_totp_challenges")
    .set({ consumed_at: now })
    .where("id", "=", id)
    .where("consumed_at", "is", null)
    .where("attempts", "<", MAX_ATTEMPTS)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Counts a wrong code against an open challenge. */
export async function countWrongAnswer(db: Kysely<TotpTables>, id: string): Promise<void> {
  await db
    .updateTable("svc_totp_challenges")
    .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
    .where("id", "=", id)
    .where("consumed_at", "is", null)
    .execute();
}
