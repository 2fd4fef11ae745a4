import type { Kysely } from "kysely";
import type { BillingEvent } from "./event.js";
import type { BillingEventsTable, BillingTables } from "./tables.js";

/** Longest hook failure message kept on an event row. */
const MAX_HOOK_ERROR_LENGTH = 1000;

/**
 * Records a verified event once: insert-or-ignore on its id, so of two
 * deliveries racing (or a redelivery) exactly one inserts. Returns whether
 * this call inserted it. `processedAt` is set at once when there is no hook.
 */
export async function recordEvent(
  db: Kysely<BillingTables>,
  input: { event: BillingEvent; payload: string; receivedAt: number; processedAt: number | null },
): Promise<boolean> {
  const inserted = await db
    .insertInto("svc_billing_events")
    .values({
      id: input.event.id,
      type: input.event.type,
      created: input.event.created,
      payload: input.payload,
      received_at: input.receivedAt,
      processed_at: input.processedAt,
      hook_error: null,
    })
    .onConflict((oc) => oc.column("id").doNothing())
    .returning("id")
    .execute();
  return inserted.length === 1;
}

/** The recorded event with this id, or undefined. */
export function findEvent(
  db: Kysely<BillingTables>,
  id: string,
): Promise<BillingEventsTable | undefined> {
  return db.selectFrom("svc_billing_events").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Notes how the hook ran: success stamps `processed_at` and clears the error; failure keeps the message. */
export async function markHookResult(
  db: Kysely<BillingTables>,
  id: string,
  result: { ok: true; at: number } | { ok: false; error: unknown },
): Promise<void> {
  const patch = result.ok
    ? { processed_at: result.at, hook_error: null }
    : { hook_error: hookErrorText(result.error) };
  await db.updateTable("svc_billing_events").set(patch).where("id", "=", id).execute();
}

/** How a hook failure is kept: `Name: message`, at most 1000 characters. */
export function hookErrorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > MAX_HOOK_ERROR_LENGTH
    ? `${text.slice(0, MAX_HOOK_ERROR_LENGTH - 1)}…`
    : text;
}
