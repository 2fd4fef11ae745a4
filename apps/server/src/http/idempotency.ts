import { createHash } from "node:crypto";
import type { RunOptions } from "@svc/functions";
import {
  type AuthContext,
  adminAuth,
  claimIdempotencyKey,
  completeIdempotencyKey,
  type EntityWriter,
  type FrameworkTransaction,
  pruneIdempotencyKeys,
  type RecordedResponse,
  releaseIdempotencyKey,
  type Store,
} from "@svc/store";
import type { Request, Response } from "express";
import { ServerError } from "../errors.js";
import { authOf } from "./request-auth.js";

/** The request header a client names its write with. */
export const IDEMPOTENCY_HEADER = "Idempotency-Key";

/** The response header a replayed answer carries. */
export const REPLAYED_HEADER = "Idempotent-Replayed";

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

/** One write named by an `Idempotency-Key`. */
export interface IdempotentWrite {
  readonly scope: string;
  readonly key: string;
  /** `fn:<name>`, `insert:<Entity>`, `update:<Entity>/<id>` or `delete:<Entity>/<id>`. */
  readonly target: string;
  readonly argsHash: string;
}

/** A recorded answer sent again instead of running the write. */
export class ReplayedAnswer {
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

/** Who calls, as the key's namespace: keys of different callers never meet. */
function scopeOf(auth: AuthContext): string {
  if (auth.userId !== null) return `user:${auth.userId}`;
  return auth.isAdmin ? "admin" : "anonymous";
}

/**
 * The write a request names with its `Idempotency-Key` header, or undefined
 * without one. A malformed key is 400 `INVALID_IDEMPOTENCY_KEY`.
 */
export function idempotentWriteOf(
  req: Request,
  target: string,
  args: unknown,
): IdempotentWrite | undefined {
  const key = req.get(IDEMPOTENCY_HEADER);
  if (key === undefined) return undefined;
  if (!KEY_PATTERN.test(key)) {
    throw new ServerError(
      "INVALID_IDEMPOTENCY_KEY",
      "The Idempotency-Key header must be 1 to 255 printable ASCII characters.",
    );
  }
  return {
    scope: scopeOf(authOf(req)),
    key,
    target,
    argsHash: createHash("sha256").update(canonicalJSON(args)).digest("hex"),
  };
}

/** Sends a write's answer: the recorded one (marked replayed) or the fresh `value`. */
export function sendAnswer(res: Response, answer: unknown, status: number): void {
  if (answer instanceof ReplayedAnswer) {
    res.setHeader(REPLAYED_HEADER, "true");
    res.status(answer.response.status).type("application/json").send(answer.response.body);
    return;
  }
  sendJSON(res, answer ?? null, status);
}

/**
 * `res.status(status).json(value)`, written out for the case every write
 * answer is in: a POST, PATCH or DELETE with no content type, ETag or
 * transfer encoding set yet, an app without JSON or ETag settings, a status
 * with a body. The headers and bytes are the ones express sends; any other
 * case goes through express.
 */
function sendJSON(res: Response, value: unknown, status: number): void {
  const { app, req } = res;
  const body = JSON.stringify(value);
  if (
    typeof body !== "string" ||
    req.method === "GET" ||
    req.method === "HEAD" ||
    status === 204 ||
    status === 205 ||
    status === 304 ||
    res.getHeader("Content-Type") !== undefined ||
    res.getHeader("ETag") !== undefined ||
    res.getHeader("Transfer-Encoding") !== undefined ||
    app.get("json escape") ||
    app.get("json replacer") ||
    app.get("json spaces") ||
    typeof app.get("etag fn") === "function"
  ) {
    res.status(status).json(value);
    return;
  }
  res.status(status);
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", String(Buffer.byteLength(body, "utf8")));
  res.end(body, "utf8");
}

/** Records and replays idempotent writes (see `createIdempotency`). */
export interface Idempotency {
  /**
   * Runs `proceed` inside `tx` once per key: claims the key first (a
   * concurrent duplicate waits for this transaction), records the answer
   * with `status` in the same transaction, or answers the recorded one.
   */
  inTransaction(
    tx: FrameworkTransaction,
    write: IdempotentWrite,
    status: number,
    proceed: () => Promise<unknown>,
  ): Promise<unknown>;
  /**
   * Runs an action once per key: the key is held while it runs (a
   * duplicate meanwhile is 409 `IDEMPOTENCY_KEY_IN_PROGRESS`), its answer
   * recorded after it completes, and released when it fails.
   */
  aroundAction(
    auth: AuthContext,
    write: IdempotentWrite,
    proceed: () => Promise<unknown>,
  ): Promise<unknown>;
  /**
   * An entity write in one transaction, idempotent when `write` is given:
   * resolves with the work's value or a `ReplayedAnswer`.
   */
  entityWrite(
    auth: AuthContext,
    write: IdempotentWrite | undefined,
    status: number,
    work: (db: EntityWriter) => Promise<unknown>,
  ): Promise<unknown>;
  /**
   * The runner seams for a function call named by `write` (none without
   * one): a mutation records in its transaction, an action around its run,
   * a query ignores the key.
   */
  runOptions(auth: AuthContext, write: IdempotentWrite | undefined): RunOptions;
}

/** What `createIdempotency` needs. */
export interface IdempotencyOptions {
  readonly store: Store;
  /** Unix ms. Default `Date.now`. */
  readonly now?: () => number;
  /** Called when a background sweep of expired keys fails. Default logs to stderr. */
  readonly onError?: (error: unknown) => void;
}

function refusal(kind: "mismatch" | "pending"): ServerError {
  return kind === "mismatch"
    ? new ServerError("IDEMPOTENCY_KEY_REUSED")
    : new ServerError("IDEMPOTENCY_KEY_IN_PROGRESS");
}

/**
 * The idempotency records of the write routes, in the store's
 * `svc_idempotency` table: a key is claimed inside the write's own
 * transaction, so a failed write records nothing and a committed one
 * always has its answer recorded.
 */
export function createIdempotency(options: IdempotencyOptions): Idempotency {
  const { store } = options;
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

  async function inTransaction(
    tx: FrameworkTransaction,
    write: IdempotentWrite,
    status: number,
    proceed: () => Promise<unknown>,
  ): Promise<unknown> {
    const at = now();
    const outcome = await claimIdempotencyKey(tx.db, {
      ...write,
      now: at,
      expiresAt: at + IDEMPOTENCY_RETENTION_MS,
    });
    if (outcome.kind === "replay") return new ReplayedAnswer(outcome.response);
    if (outcome.kind !== "claimed") throw refusal(outcome.kind);
    const value = await proceed();
    await completeIdempotencyKey(tx.db, {
      scope: write.scope,
      key: write.key,
      response: { status, body: JSON.stringify(value ?? null) },
      expiresAt: at + IDEMPOTENCY_RETENTION_MS,
    });
    return value;
  }

  async function aroundAction(
    auth: AuthContext,
    write: IdempotentWrite,
    proceed: () => Promise<unknown>,
  ): Promise<unknown> {
    const at = now();
    const outcome = await store.frameworkTransaction(auth, (tx) =>
      claimIdempotencyKey(tx.db, { ...write, now: at, expiresAt: at + ACTION_LEASE_MS }),
    );
    if (outcome.kind === "replay") return new ReplayedAnswer(outcome.response);
    if (outcome.kind !== "claimed") throw refusal(outcome.kind);
    let value: unknown;
    try {
      value = await proceed();
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
  }

  return {
    inTransaction,
    aroundAction,
    runOptions(auth, write) {
      if (write === undefined) return {};
      pruneIfDue(now());
      return {
        aroundMutation: (tx, proceed) => inTransaction(tx, write, 200, proceed),
        aroundAction: (proceed) => aroundAction(auth, write, proceed),
      };
    },
    async entityWrite(auth, write, status, work) {
      if (write === undefined) return store.transaction(auth, work);
      pruneIfDue(now());
      return store.frameworkTransaction(auth, (tx) =>
        inTransaction(tx, write, status, () => work(tx.entities)),
      );
    },
  };
}
