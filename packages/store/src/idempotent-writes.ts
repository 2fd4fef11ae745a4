import { createHash } from "node:crypto";
import { type AuthContext, adminAuth } from "@svc/schema";
import { StoreError } from "./errors.js";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  type IdempotencyOutcome,
  pruneIdempotencyKeys,
  type RecordedResponse,
  releaseIdempotencyKey,
} from "./idempotency.js";
import type { FrameworkTransaction, Store } from "./types.js";

/** How long a completed write's answer is kept: 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * How long a running action holds its key: 10 minutes. A server that dies
 * mid-action must not block the key for a whole day.
 */
export const ACTION_LEASE_MS = 10 * 60 * 1000;

/** Expired keys are swept at most this often (besides each key's own lazy check). */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

// 1..255 printable ASCII characters (space to tilde).
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** One write named by a client's `Idempotency-Key`. */
export interface IdempotentWrite {
  /** Who calls, e.g. `user:<id>` or `admin`: keys of different callers never meet. */
  readonly scope: string;
  readonly key: string;
  /** `fn:<name>`, `insert:<Entity>`, `update:<Entity>/<id>` or `delete:<Entity>/<id>`. */
  readonly target: string;
  /** A hash of the write's arguments, so another body under the same key is told apart. */
  readonly argsHash: string;
}

/**
 * The recorded answer of a write done before under the same key: what a
 * repeated write resolves with instead of running again. Send it as it is
 * (`response.status`, `response.body`), marked replayed.
 */
export class IdempotentReplay {
  constructor(readonly response: RecordedResponse) {}
}

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` hash alike. */
function canonicalJSON(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJSON).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, item]) => `${JSON.stringify(k)}:${canonicalJSON(item)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The caller as the key's namespace. */
function scopeOf(auth: AuthContext): string {
  if (auth.userId !== null) return `user:${auth.userId}`;
  return auth.isAdmin ? "admin" : "anonymous";
}

/**
 * The write `auth` names with `key` (the `Idempotency-Key` header's value):
 * scoped to the caller, bound to `target` and a hash of `args`. A malformed
 * key is 400 `INVALID_IDEMPOTENCY_KEY`.
 *
 * @example
 * const write = idempotentWriteOf(auth, req.get("Idempotency-Key"), "insert:Todo", body);
 */
export function idempotentWriteOf(
  auth: AuthContext,
  key: string,
  target: string,
  args: unknown,
): IdempotentWrite {
  if (!KEY_PATTERN.test(key)) throw new StoreError("INVALID_IDEMPOTENCY_KEY");
  return {
    scope: scopeOf(auth),
    key,
    target,
    argsHash: createHash("sha256").update(canonicalJSON(args)).digest("hex"),
  };
}

/**
 * Idempotent writes over one store's `svc_idempotency` table (see
 * `createIdempotency`). A write resolves with its fresh value, or with an
 * `IdempotentReplay` when the key was used for the same write before; it
 * rejects with 409 `IDEMPOTENCY_KEY_REUSED` (same key, another write or
 * other arguments) or 409 `IDEMPOTENCY_KEY_IN_PROGRESS` (an action under the
 * key still runs).
 */
export interface Idempotency {
  /**
   * Runs `work` in one framework transaction, once per key: the key is
   * claimed first in that transaction (a concurrent duplicate waits for it,
   * on any server), the answer (`status`, the value as JSON) recorded in it
   * too, so a failed write records nothing and a committed one always has
   * its answer.
   */
  transaction<T>(
    auth: AuthContext,
    write: IdempotentWrite,
    status: number,
    work: (tx: FrameworkTransaction) => Promise<T>,
  ): Promise<T | IdempotentReplay>;
  /**
   * Runs `work` (which has no transaction of its own: an action) once per
   * key: the key is held while it runs (for at most `ACTION_LEASE_MS`), its
   * answer (200) recorded after it completes, released when it fails.
   */
  action<T>(
    auth: AuthContext,
    write: IdempotentWrite,
    work: () => Promise<T>,
  ): Promise<T | IdempotentReplay>;
}

/** What `createIdempotency` may be told. */
export interface IdempotencyOptions {
  /** Unix ms. Default `Date.now`. */
  readonly now?: () => number;
  /** Called when a background sweep of expired keys fails. Default logs to stderr. */
  readonly onError?: (error: unknown) => void;
}

function refusal(outcome: IdempotencyOutcome): StoreError {
  return new StoreError(
    outcome.kind === "mismatch" ? "IDEMPOTENCY_KEY_REUSED" : "IDEMPOTENCY_KEY_IN_PROGRESS",
  );
}

/**
 * The idempotent writes of `store`: each write's key is claimed and its
 * answer recorded in the store's own `svc_idempotency` table (migrate it
 * with `idempotencyMigrations()`), so one key means one write across
 * servers and crashes. Answers are kept for `IDEMPOTENCY_RETENTION_MS`;
 * expired keys are swept at most hourly, detached from any write.
 *
 * @example
 * const idempotency = createIdempotency(store);
 * const answer = await idempotency.transaction(auth, write, 201, (tx) =>
 *   tx.entities.insert("Todo", { title: "milk" }),
 * );
 * if (answer instanceof IdempotentReplay) send(answer.response);
 */
export function createIdempotency(store: Store, options: IdempotencyOptions = {}): Idempotency {
  const now = options.now ?? Date.now;
  const onError =
    options.onError ??
    ((error: unknown) => console.error("svc: pruning idempotency keys failed:", error));
  let lastPrune = Number.NEGATIVE_INFINITY;
  // A detached sweep, started before the caller's transaction (never inside one).
  const pruneIfDue = (at: number): void => {
    if (at - lastPrune < PRUNE_INTERVAL_MS) return;
    lastPrune = at;
    store.frameworkTransaction(adminAuth, (tx) => pruneIdempotencyKeys(tx.db, at)).catch(onError);
  };

  return {
    transaction(auth, write, status, work) {
      const at = now();
      pruneIfDue(at);
      return store.frameworkTransaction(auth, async (tx) => {
        const outcome = await claimIdempotencyKey(tx.db, {
          ...write,
          now: at,
          expiresAt: at + IDEMPOTENCY_RETENTION_MS,
        });
        if (outcome.kind === "replay") return new IdempotentReplay(outcome.response);
        if (outcome.kind !== "claimed") throw refusal(outcome);
        const value = await work(tx);
        await completeIdempotencyKey(tx.db, {
          scope: write.scope,
          key: write.key,
          response: { status, body: JSON.stringify(value ?? null) },
          expiresAt: at + IDEMPOTENCY_RETENTION_MS,
        });
        return value;
      });
    },

    async action(auth, write, work) {
      const at = now();
      pruneIfDue(at);
      const outcome = await store.frameworkTransaction(auth, (tx) =>
        claimIdempotencyKey(tx.db, { ...write, now: at, expiresAt: at + ACTION_LEASE_MS }),
      );
      if (outcome.kind === "replay") return new IdempotentReplay(outcome.response);
      if (outcome.kind !== "claimed") throw refusal(outcome);
      let value: Awaited<ReturnType<typeof work>>;
      try {
        value = await work();
      } catch (error) {
        await store.frameworkTransaction(auth, (tx) => releaseIdempotencyKey(tx.db, write));
        throw error;
      }
      await store.frameworkTransaction(auth, (tx) =>
        completeIdempotencyKey(tx.db, {
          scope: write.scope,
          key: write.key,
          response: { status: 200, body: JSON.stringify(value ?? null) },
          expiresAt: now() + IDEMPOTENCY_RETENTION_MS,
        }),
      );
      return value;
    },
  };
}
