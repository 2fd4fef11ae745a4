import type { Kysely } from "kysely";
import { digestsEqual, newRowId } from "./secrets.js";
import type { AuthTables, CodesTable } from "./tables.js";

/** What a one-time secret is for; one outstanding secret per purpose and subject. */
export type CodePurpose = "magic" | "verify" | "phone" | "link" | "reset";

/** The spec's shared limits for magic and email codes. */
export const CODE_TTL_MS = 10 * 60 * 1000;
export const SEND_COOLDOWN_MS = 60 * 1000;
export const MAX_ATTEMPTS = 5;

/** The outcome of `issueCode`. */
export type IssueResult =
  | {
      readonly issued: true;
      /** Undoes the issue (the send failed), restoring the earlier code and cooldown. */
      readonly revert: () => Promise<void>;
    }
  | { readonly issued: false; readonly retryAfterMs: number };

/**
 * Stores a new code hash for `(purpose, subject)`, replacing the previous
 * one, unless one was sent less than `SEND_COOLDOWN_MS` ago. The upsert is
 * conditional on the cooldown in one statement, so two concurrent sends
 * cannot both pass it, on any number of servers.
 */
export async function issueCode(
  db: Kysely<AuthTables>,
  input: { purpose: CodePurpose; subject: string; codeHash: string; now: number },
): Promise<IssueResult> {
  const { purpose, subject, codeHash, now } = input;
  const previous = await db
    .selectFrom("svc_codes")
    .selectAll()
    .where("purpose", "=", purpose)
    .where("subject", "=", subject)
    .executeTakeFirst();
  const cooldownLeft = (row: CodesTable | undefined): number =>
    row === undefined ? 0 : Number(row.sent_at) + SEND_COOLDOWN_MS - now;
  if (cooldownLeft(previous) > 0) return { issued: false, retryAfterMs: cooldownLeft(previous) };
  const fresh: CodesTable = {
    id: newRowId(),
    purpose,
    subject,
    code_hash: codeHash,
    sent_at: now,
    expires_at: now + CODE_TTL_MS,
    attempts: 0,
    consumed_at: null,
  };
  const written = await db
    .insertInto("svc_codes")
    .values(fresh)
    .onConflict((oc) =>
      oc
        .columns(["purpose", "subject"])
        .doUpdateSet({
          id: fresh.id,
          code_hash: fresh.code_hash,
          sent_at: fresh.sent_at,
          expires_at: fresh.expires_at,
          attempts: 0,
          consumed_at: null,
        })
        .where("svc_codes.sent_at", "<=", now - SEND_COOLDOWN_MS),
    )
    .returning("id")
    .executeTakeFirst();
  if (written === undefined) {
    // Another request issued a code between the read and the upsert.
    return { issued: false, retryAfterMs: SEND_COOLDOWN_MS };
  }
  return {
    issued: true,
    async revert() {
      if (previous === undefined) {
        await db.deleteFrom("svc_codes").where("id", "=", fresh.id).execute();
        return;
      }
      await db
        .updateTable("svc_codes")
        .set({ ...previous })
        .where("id", "=", fresh.id)
        .execute();
    },
  };
}

/** The outcome of `consumeCode`. */
export type ConsumeResult =
  | { readonly outcome: "accepted" }
  /** Wrong, expired, used or unknown. */
  | { readonly outcome: "invalid" }
  /** `MAX_ATTEMPTS` wrong guesses burned it; `retryAfterMs` until a new one may be sent. */
  | { readonly outcome: "burned"; readonly retryAfterMs: number };

/**
 * Checks a guess against the outstanding code for `(purpose, subject)`:
 * compares the HMACs in constant time, counts a wrong guess, and consumes a
 * right one exactly once (a conditional update, so two concurrent right
 * guesses cannot both win). Once `MAX_ATTEMPTS` guesses were wrong the code
 * is burned and even the right one is refused.
 */
export async function consumeCode(
  db: Kysely<AuthTables>,
  input: { purpose: CodePurpose; subject: string; candidateHash: string; now: number },
): Promise<ConsumeResult> {
  const { purpose, subject, candidateHash, now } = input;
  const row = await db
    .selectFrom("svc_codes")
    .selectAll()
    .where("purpose", "=", purpose)
    .where("subject", "=", subject)
    .executeTakeFirst();
  if (row === undefined || row.consumed_at !== null || Number(row.expires_at) <= now) {
    return { outcome: "invalid" };
  }
  if (Number(row.attempts) >= MAX_ATTEMPTS) {
    return {
      outcome: "burned",
      retryAfterMs: Math.max(1000, Number(row.sent_at) + SEND_COOLDOWN_MS - now),
    };
  }
  if (digestsEqual(row.code_hash, candidateHash)) {
    const consumed = await db
      .updateTable("svc_codes")
      .set({ consumed_at: now })
      .where("id", "=", row.id)
      .where("consumed_at", "is", null)
      .where("attempts", "<", MAX_ATTEMPTS)
      .executeTakeFirst();
    return Number(consumed.numUpdatedRows) === 1 ? { outcome: "accepted" } : { outcome: "invalid" };
  }
  await db
    .updateTable("svc_codes")
    .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
    .where("id", "=", row.id)
    .where("consumed_at", "is", null)
    .execute();
  return { outcome: "invalid" };
}
