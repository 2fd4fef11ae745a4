import type { Span } from "@opentelemetry/api";
import { adminAuth, type Store } from "@svc/store";
import type { Kysely } from "kysely";
import { userOfCustomer } from "./customers.js";
import { BillingError } from "./errors.js";
import { type BillingEvent, billingEventSchema, parseEvent } from "./event.js";
import { findEvent, hookErrorText, markHookResult, recordEvent } from "./ledger.js";
import { verifyWebhookSignature } from "./signature.js";
import { subscriptionFromEvent } from "./subscription-event.js";
import { applySubscription } from "./subscriptions.js";
import type { BillingTables } from "./tables.js";
import { withSpan } from "./tracing.js";

/**
 * Runs for each newly recorded event, after it (and the entitlement change
 * it caused) committed, and again for `replayEvent`. A throw is recorded on
 * the event row and logged; the webhook still answers 200, so the
 * processor does not redeliver (and a redelivery would be ignored anyway).
 */
export type BillingEventHook = (
  event: BillingEvent,
  context: { readonly replay: boolean },
) => void | Promise<void>;

/** The state of a recorded event after `replayEvent` ran its hook. */
export interface ReplayResult {
  readonly id: string;
  readonly type: string;
  /** When the hook last finished without throwing (unix ms), or null. */
  readonly processedAt: number | null;
  /** The hook's failure from this run (as recorded on the row), or null when it succeeded. */
  readonly hookError: string | null;
}

/** What the webhook needs. */
export interface WebhookDeps {
  readonly store: Store;
  readonly db: Kysely<BillingTables>;
  readonly apiKey: string | undefined;
  readonly webhookSecret: string | undefined;
  /** Unix ms. */
  readonly now: () => number;
  readonly onEvent: BillingEventHook | undefined;
  readonly logError: (message: string, error: unknown) => void;
  /**
   * Called after an event that changed a subscription committed, with the
   * user it belongs to (null when no user holds the customer yet):
   * entitlement caches drop their copies.
   */
  readonly onSubscriptionChange?: (userId: string | null) => Promise<void>;
}

async function runHook(
  deps: WebhookDeps,
  event: BillingEvent,
  replay: boolean,
): Promise<string | null> {
  if (deps.onEvent === undefined) {
    await markHookResult(deps.db, event.id, { ok: true, at: deps.now() });
    return null;
  }
  let failure: unknown;
  let failed = false;
  try {
    await deps.onEvent(event, { replay });
  } catch (error) {
    failed = true;
    failure = error;
    deps.logError(`the onEvent hook failed for ${event.type} ${event.id}`, error);
  }
  try {
    await markHookResult(
      deps.db,
      event.id,
      failed ? { ok: false, error: failure } : { ok: true, at: deps.now() },
    );
  } catch (error) {
    deps.logError(`could not record the hook result of ${event.id}`, error);
  }
  if (!failed) return null;
  return hookErrorText(failure);
}

/**
 * Verifies and records one webhook delivery. 501 `PAYMENT_NOT_CONFIGURED`
 * without an API key (billing is off), 501 `WEBHOOK_NOT_CONFIGURED` without
 * a secret; a missing or garbled signature header, a wrong signature, a
 * timestamp more than 300 s off, or a body that is not an event is 400
 * `WEBHOOK_INVALID`. A verified event is recorded once by id, together
 * with the subscription state it carries, in one transaction; then the
 * hook runs. A redelivery is acknowledged and nothing else happens.
 */
export function receiveWebhook(
  deps: WebhookDeps,
  raw: Uint8Array,
  signature: string | undefined,
): Promise<{ received: true }> {
  // One `billing.webhook` span per delivery, with the event's type once verified.
  return withSpan("billing.webhook", {}, (span) => receiveInSpan(deps, raw, signature, span));
}

async function receiveInSpan(
  deps: WebhookDeps,
  raw: Uint8Array,
  signature: string | undefined,
  span: Span,
): Promise<{ received: true }> {
  if (deps.apiKey === undefined) throw new BillingError("PAYMENT_NOT_CONFIGURED");
  if (deps.webhookSecret === undefined) throw new BillingError("WEBHOOK_NOT_CONFIGURED");
  const receivedAt = deps.now();
  const verified = verifyWebhookSignature({
    payload: raw,
    header: signature,
    secret: deps.webhookSecret,
    nowSecs: Math.floor(receivedAt / 1000),
  });
  if (!verified) throw new BillingError("WEBHOOK_INVALID");
  const parsed = parseEvent(raw);
  if (parsed === null) throw new BillingError("WEBHOOK_INVALID");
  const { event, text } = parsed;
  span.setAttribute("svc.billing.event_type", event.type);
  const outcome = await deps.store.frameworkTransaction(adminAuth, async (tx) => {
    const db = tx.db as unknown as Kysely<BillingTables>;
    const inserted = await recordEvent(db, {
      event,
      payload: text,
      receivedAt,
      processedAt: deps.onEvent === undefined ? receivedAt : null,
    });
    if (!inserted) return { isNew: false, changed: false, userId: null };
    const update = subscriptionFromEvent(event);
    if (update === null) return { isNew: true, changed: false, userId: null };
    // Billing's own record, never the user-editable User field.
    const userId = await userOfCustomer(tx.db, update.customerId);
    await applySubscription(db, {
      update,
      userId,
      eventId: event.id,
      eventCreated: event.created,
      now: receivedAt,
    });
    return { isNew: true, changed: true, userId };
  });
  if (outcome.changed) await deps.onSubscriptionChange?.(outcome.userId);
  const isNew = outcome.isNew;
  span.setAttribute("svc.billing.redelivery", !isNew);
  if (isNew && deps.onEvent !== undefined) await runHook(deps, event, false);
  return { received: true };
}

/** Runs the hook again for a recorded event; 404 `EVENT_NOT_FOUND` when there is none. */
export async function replayRecordedEvent(
  deps: WebhookDeps,
  eventId: string,
): Promise<ReplayResult> {
  const row = eventId.length > 255 ? undefined : await findEvent(deps.db, eventId);
  if (row === undefined) throw new BillingError("EVENT_NOT_FOUND");
  const event = billingEventSchema.parse(JSON.parse(row.payload));
  const hookError = await runHook(deps, event, true);
  const after = await findEvent(deps.db, eventId);
  const processedAt = after?.processed_at ?? null;
  return {
    id: row.id,
    type: row.type,
    processedAt: processedAt === null ? null : Number(processedAt),
    hookError,
  };
}
