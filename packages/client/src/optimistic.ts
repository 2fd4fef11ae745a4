import { generateId } from "./ids.js";
import type { LiveRow } from "./live-frames.js";
import type { AnyApi, ApiShape, EntityName } from "./types.js";

/** Field values of a row, without its id. */
export type RowData = Readonly<Record<string, unknown>>;

/**
 * One change an optimistic update makes to the rows on screen: plain JSON,
 * so a queued write keeps it across a reload.
 */
export type OptimisticChange =
  | { readonly op: "insert"; readonly entity: string; readonly id: string; readonly row: RowData }
  | { readonly op: "update"; readonly entity: string; readonly id: string; readonly patch: RowData }
  | { readonly op: "delete"; readonly entity: string; readonly id: string };

/**
 * What an optimistic update writes with: the rows a write is expected to
 * change, shown at once in every live subscription (and `useQuery`) of the
 * client until the server answers.
 */
export interface OptimisticWriter<TApi extends ApiShape = AnyApi> {
  /**
   * Shows a new row; answers its id (`data.id`, or a new `generateId()`).
   * Give the write the same id, so the server's row replaces this one.
   */
  insert<TName extends EntityName<TApi>>(
    entity: TName,
    data: Partial<TApi["entities"][TName]> & { readonly id?: string },
  ): string;
  /** Changes fields of a row the subscription shows. */
  update<TName extends EntityName<TApi>>(
    entity: TName,
    id: string,
    patch: Partial<TApi["entities"][TName]>,
  ): void;
  /** Hides a row. */
  delete<TName extends EntityName<TApi>>(entity: TName, id: string): void;
}

/**
 * An optimistic update: writes what a call is expected to do to the rows
 * on screen. It runs once, before the request is sent.
 *
 * @example
 * const id = generateId();
 * await client.fn("createTodo", { id, title: "Milk" }, {
 *   optimistic: (tx) => tx.insert("Todo", { id, title: "Milk", done: false }),
 * });
 */
export type OptimisticUpdate<TApi extends ApiShape = AnyApi> = (tx: OptimisticWriter<TApi>) => void;

function withoutId(data: RowData): RowData {
  const { id: _id, ...rest } = data;
  return rest;
}

/** Runs `update` against a recording writer; answers the changes it wrote, in order. */
export function recordOptimistic<TApi extends ApiShape = AnyApi>(
  update: OptimisticUpdate<TApi>,
): OptimisticChange[] {
  const changes: OptimisticChange[] = [];
  const writer: OptimisticWriter<AnyApi> = {
    insert(entity, data) {
      const id = typeof data.id === "string" ? data.id : generateId();
      changes.push({ op: "insert", entity, id, row: withoutId(data) });
      return id;
    },
    update(entity, id, patch) {
      changes.push({ op: "update", entity, id, patch: withoutId(patch) });
    },
    delete(entity, id) {
      changes.push({ op: "delete", entity, id });
    },
  };
  update(writer as unknown as OptimisticWriter<TApi>);
  return changes;
}

/** The optimistic changes of one write, from the request to the server's answer. */
export interface OptimisticBatch {
  /** The write is sent (again): a row change seen before this says nothing about it. */
  sending(): void;
  /**
   * The server applied the write. `row` is the row an entity write
   * answered: it replaces the guess. The changes stay on screen until the
   * server's own change for each row arrives.
   */
  confirm(row?: LiveRow): void;
  /** The write failed: its changes leave the screen. */
  rollback(): void;
}

interface Entry {
  change: OptimisticChange;
  /** A live change of this row arrived since the write was sent. */
  seen: boolean;
}

interface Batch {
  entries: Entry[];
  confirmed: boolean;
}

/**
 * The optimistic changes on screen, applied over the live rows of every
 * entity subscription of a client. A change lasts from its write's request
 * until the write fails (rolled back), or the write succeeded and the
 * server's change of that row reached the client (a live change of the
 * row, a new snapshot of its entity, or no subscription of its entity
 * left to show it).
 */
export class OptimisticStore {
  readonly #batches = new Set<Batch>();
  readonly #listeners = new Map<string, Set<() => void>>();
  readonly #views = new Map<string, number>();

  /** Puts `changes` on screen; the batch settles them. */
  add(changes: readonly OptimisticChange[]): OptimisticBatch {
    const batch: Batch = {
      entries: changes.map((change) => ({ change, seen: false })),
      confirmed: false,
    };
    if (batch.entries.length > 0) {
      this.#batches.add(batch);
      this.#notify(batch.entries);
    }
    return {
      sending: () => {
        for (const entry of batch.entries) entry.seen = false;
      },
      confirm: (row) => this.#confirm(batch, row),
      rollback: () => this.#drop(batch),
    };
  }

  /** The changes of `entity` on screen now, oldest first. */
  changes(entity: string): OptimisticChange[] {
    const out: OptimisticChange[] = [];
    for (const batch of this.#batches) {
      for (const { change } of batch.entries) if (change.entity === entity) out.push(change);
    }
    return out;
  }

  /** Number of writes whose changes are on screen. */
  get size(): number {
    return this.#batches.size;
  }

  /** A live change of one row arrived. */
  observeChange(entity: string, id: string): void {
    this.#retireWhere((batch, entry) => {
      if (entry.change.entity !== entity || entry.change.id !== id) return false;
      if (batch.confirmed) return true;
      entry.seen = true;
      return false;
    });
  }

  /** A new snapshot of `entity` arrived: it holds every write confirmed so far. */
  observeSnapshot(entity: string): void {
    this.#retireWhere((batch, entry) => batch.confirmed && entry.change.entity === entity);
  }

  /** A subscription of `entity` opened; the function answered closes it. */
  openView(entity: string): () => void {
    this.#views.set(entity, (this.#views.get(entity) ?? 0) + 1);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      const left = (this.#views.get(entity) ?? 1) - 1;
      if (left > 0) {
        this.#views.set(entity, left);
        return;
      }
      this.#views.delete(entity);
      this.#retireWhere((batch, entry) => batch.confirmed && entry.change.entity === entity);
    };
  }

  /** Calls `listener` whenever the changes of `entity` on screen change. */
  subscribe(entity: string, listener: () => void): () => void {
    let set = this.#listeners.get(entity);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(entity, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(entity);
    };
  }

  /** Takes every change off the screen. */
  clear(): void {
    const entries = [...this.#batches].flatMap((batch) => batch.entries);
    this.#batches.clear();
    this.#notify(entries);
  }

  #confirm(batch: Batch, row: LiveRow | undefined): void {
    if (!this.#batches.has(batch)) return;
    batch.confirmed = true;
    const [only] = batch.entries;
    if (row !== undefined && only !== undefined && batch.entries.length === 1) {
      const { change } = only;
      if (change.op === "insert") only.change = { ...change, row: withoutId(row) };
      else if (change.op === "update") only.change = { ...change, patch: withoutId(row) };
    }
    const changed = [...batch.entries];
    batch.entries = batch.entries.filter(
      (entry) => !entry.seen && (this.#views.get(entry.change.entity) ?? 0) > 0,
    );
    if (batch.entries.length === 0) this.#batches.delete(batch);
    this.#notify(changed);
  }

  #drop(batch: Batch): void {
    if (!this.#batches.delete(batch)) return;
    this.#notify(batch.entries);
  }

  #retireWhere(retire: (batch: Batch, entry: Entry) => boolean): void {
    const retired: Entry[] = [];
    for (const batch of this.#batches) {
      const kept = batch.entries.filter((entry) => !retire(batch, entry));
      if (kept.length === batch.entries.length) continue;
      retired.push(...batch.entries.filter((entry) => !kept.includes(entry)));
      batch.entries = kept;
      if (kept.length === 0) this.#batches.delete(batch);
    }
    this.#notify(retired);
  }

  #notify(entries: readonly Entry[]): void {
    const entities = new Set(entries.map((entry) => entry.change.entity));
    for (const entity of entities) {
      for (const listener of [...(this.#listeners.get(entity) ?? [])]) {
        try {
          listener();
        } catch (error) {
          console.error("svc client: an optimistic listener threw:", error);
        }
      }
    }
  }
}

/** Whether `row` may belong to a view with `where`: a field the row lacks (the server fills it) matches. */
function matchesWhere(row: RowData, where: RowData | undefined): boolean {
  if (where === undefined) return true;
  for (const [field, value] of Object.entries(where)) {
    if (value === undefined) continue;
    const held = row[field];
    if (held !== undefined && held !== value) return false;
  }
  return true;
}

/**
 * The rows a view shows: the live `rows` with `changes` applied in order.
 * An insert is appended (as a live insert would be) unless the row is
 * there already or fails `where`; an update changes a row the view holds
 * (and drops it when it no longer matches `where`); a delete drops it.
 */
export function mergeOptimistic(
  rows: readonly LiveRow[],
  changes: readonly OptimisticChange[],
  where: RowData | undefined,
): readonly LiveRow[] {
  if (changes.length === 0) return rows;
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const change of changes) {
    if (change.op === "delete") {
      byId.delete(change.id);
    } else if (change.op === "insert") {
      if (!byId.has(change.id) && matchesWhere(change.row, where)) {
        byId.set(change.id, { ...change.row, id: change.id });
      }
    } else {
      const base = byId.get(change.id);
      if (base === undefined) continue;
      const next: LiveRow = { ...base, ...change.patch, id: change.id };
      if (matchesWhere(next, where)) byId.set(change.id, next);
      else byId.delete(change.id);
    }
  }
  return [...byId.values()];
}

function sameRow(a: LiveRow, b: LiveRow): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.is(a[key], b[key]));
}

/** Whether two row lists show the same thing (same rows, same order, same field values). */
export function sameRows(a: readonly LiveRow[], b: readonly LiveRow[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  return a.every((row, index) => {
    const other = b[index];
    return other !== undefined && sameRow(row, other);
  });
}

/**
 * Runs `send` with `changes` on screen: confirmed with the answer's row
 * (`rowOf`) when it succeeds, rolled back when it fails.
 */
export async function withOptimistic<T>(
  store: OptimisticStore,
  changes: readonly OptimisticChange[],
  send: () => Promise<T>,
  rowOf: (value: T) => LiveRow | undefined = () => undefined,
): Promise<T> {
  const batch = store.add(changes);
  batch.sending();
  let value: T;
  try {
    value = await send();
  } catch (error) {
    batch.rollback();
    throw error;
  }
  batch.confirm(rowOf(value));
  return value;
}

/** The answer of an entity write as a row, when it is one. */
export function rowOfAnswer(value: unknown): LiveRow | undefined {
  return typeof value === "object" &&
    value !== null &&
    typeof (value as { id?: unknown }).id === "string"
    ? (value as LiveRow)
    : undefined;
}
