import type { HookContext } from "@svc/functions";

/** The one `WaitlistCounter` row's id (any fixed 40-hex id does). */
export const COUNTER_ID = "0".repeat(40);

function isUniqueViolation(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { code?: unknown }).code === "UNIQUE_VIOLATION"
  );
}

/**
 * Locks the `WaitlistCounter` row for the rest of the caller's transaction
 * and answers how many places were handed out so far. The lock is an
 * update: on Postgres a second join waits here until the first commits,
 * and then reads the count the first one left, so two people joining at
 * once never get the same place. (SQLite runs one write transaction at a
 * time anyway.) The row is created by the first join ever.
 */
export async function lockPositions(db: HookContext["db"]): Promise<number> {
  const now = new Date().toISOString();
  if ((await db.get("WaitlistCounter", COUNTER_ID)) === null) {
    try {
      await db.insert("WaitlistCounter", { id: COUNTER_ID, taken: 0, updatedAt: now });
    } catch (error) {
      // Another first join created it at the same moment: use theirs.
      if (!isUniqueViolation(error)) throw error;
    }
  }
  const counter = await db.update("WaitlistCounter", COUNTER_ID, { updatedAt: now });
  return Number(counter.taken);
}

/** Records that `taken` places are handed out (after `lockPositions`, in the same transaction). */
export async function recordPositions(db: HookContext["db"], taken: number): Promise<void> {
  await db.update("WaitlistCounter", COUNTER_ID, { taken });
}
