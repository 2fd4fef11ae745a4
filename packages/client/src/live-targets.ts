import { SvcError } from "./errors.js";
import type {
  ChangeFrame,
  EntityRequest,
  EntityTarget,
  LiveRow,
  QueryTarget,
} from "./live-frames.js";
import { RowSet } from "./live-rows.js";

/** Calls a user's callback; one that throws must not break the transport. */
function call<T>(callback: ((value: T) => void) | undefined, value: T): void {
  if (callback === undefined) return;
  try {
    callback(value);
  } catch (error) {
    console.error("svc client: a live listener threw:", error);
  }
}

/** A promise that callers may ignore: its rejection is never reported as unhandled. */
function deferred<T>(): {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

function unsubscribedError(): SvcError {
  return new SvcError("UNSUBSCRIBED", "The subscription ended before its first answer.", {
    status: 0,
  });
}

/**
 * What every live target shares: `ready` settles once (its first answer,
 * or its first error, or its end before either), a fatal error or its
 * owner ends it, and every error reaches `onError`.
 */
abstract class LiveTarget<T> {
  readonly #onError: ((error: SvcError) => void) | undefined;
  readonly #ready = deferred<T>();
  #settled = false;
  #ended = false;

  constructor(onError: ((error: SvcError) => void) | undefined) {
    this.#onError = onError;
  }

  get ready(): Promise<T> {
    return this.#ready.promise;
  }

  get ended(): boolean {
    return this.#ended;
  }

  fail(error: SvcError): void {
    if (this.ended) return;
    this.#ended = true;
    this.warn(error);
  }

  warn(error: SvcError): void {
    this.#reject(error);
    call(this.#onError, error);
  }

  /** Marks the subscription ended by its owner. */
  end(): void {
    this.#ended = true;
    this.#reject(unsubscribedError());
  }

  /** Settles `ready` with the first answer; later answers leave it as it is. */
  protected answered(value: T): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#ready.resolve(value);
  }

  #reject(error: SvcError): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#ready.reject(error);
  }
}

/**
 * What happened to an entity subscription's rows, told before its listener
 * runs: a new snapshot, one row's change (applied or not), or a reset.
 */
export type RowsNotice =
  | { readonly type: "snapshot" }
  | { readonly type: "change"; readonly rowId: string }
  | { readonly type: "reset" };

/** The state of one entity subscription: its rows, cursor and callbacks. */
export class EntitySubscription<TRow extends LiveRow = LiveRow>
  extends LiveTarget<readonly TRow[]>
  implements EntityTarget
{
  readonly kind = "entity";
  readonly request: EntityRequest;
  readonly #rows = new RowSet<TRow>();
  readonly #listener: (rows: readonly TRow[]) => void;
  readonly #onNotice: ((notice: RowsNotice) => void) | undefined;
  #cursor: string | null = null;

  constructor(
    request: EntityRequest,
    listener: (rows: readonly TRow[]) => void,
    onError: ((error: SvcError) => void) | undefined,
    onNotice?: (notice: RowsNotice) => void,
  ) {
    super(onError);
    this.request = request;
    this.#listener = listener;
    this.#onNotice = onNotice;
  }

  get cursor(): string | null {
    return this.#cursor;
  }

  get rows(): readonly TRow[] {
    return this.#rows.rows;
  }

  snapshot(rows: readonly LiveRow[], cursor: string): void {
    if (this.ended) return;
    this.#rows.replace(rows as readonly TRow[]);
    this.#cursor = cursor;
    this.answered(this.#rows.rows);
    call(this.#onNotice, { type: "snapshot" });
    call(this.#listener, this.#rows.rows);
  }

  change(frame: ChangeFrame): void {
    if (this.ended) return;
    this.#cursor = frame.cursor;
    const changed = this.#rows.apply(frame);
    call(this.#onNotice, { type: "change", rowId: frame.rowId });
    if (changed) call(this.#listener, this.#rows.rows);
  }

  resync(): void {
    // The rows stay on screen until the new snapshot replaces them.
    this.#cursor = null;
  }

  /** Forgets the rows and the cursor: the next subscribe loads a new snapshot. */
  reset(): void {
    this.#cursor = null;
    const changed = this.#rows.clear();
    call(this.#onNotice, { type: "reset" });
    if (changed) call(this.#listener, this.#rows.rows);
  }
}

/** The state of one live query: its last value and callbacks. */
export class QuerySubscription<T = unknown> extends LiveTarget<T> implements QueryTarget {
  readonly kind = "query";
  readonly query: string;
  readonly args: unknown;
  readonly #listener: (value: T) => void;
  #value: T | undefined;

  constructor(
    query: string,
    args: unknown,
    handlers: { onValue: (value: T) => void; onError?: ((error: SvcError) => void) | undefined },
  ) {
    super(handlers.onError);
    this.query = query;
    this.args = args;
    this.#listener = handlers.onValue;
  }

  get value(): T | undefined {
    return this.#value;
  }

  result(value: unknown): void {
    if (this.ended) return;
    this.#value = value as T;
    this.answered(value as T);
    call(this.#listener, value as T);
  }

  /** Forgets the value: the caller's identity changed. */
  reset(): void {
    this.#value = undefined;
  }
}
