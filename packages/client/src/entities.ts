import { generateId } from "./ids.js";
import {
  type OptimisticChange,
  type OptimisticStore,
  rowOfAnswer,
  withOptimistic,
} from "./optimistic.js";
import type { CallOptions, Transport, TransportRequest } from "./transport.js";
import type { EntityRow } from "./types.js";
import type { WriteCallOptions, WriteSender } from "./write-sender.js";

/** A field name to sort by, `-field` for descending. */
export type OrderBy<TFields> =
  | (keyof TFields & string)
  | `-${keyof TFields & string}`
  | "id"
  | "-id";

/** Options of `list`; the same `where` and `order` must come with a `cursor`. */
export interface ListOptions<TFields> extends CallOptions {
  /** ANDed equality filters, sent as the `where` JSON parameter; `null` matches null. */
  readonly where?: { readonly [K in keyof TFields]?: TFields[K] | null };
  /** One field, `-field` for descending. Default `id` ascending. */
  readonly order?: OrderBy<TFields>;
  /** Page size 1..1000. Default 100 (the server's). */
  readonly limit?: number;
  /** The `nextCursor` of the previous page. */
  readonly cursor?: string;
}

/** One page of rows; `nextCursor` is null on the last page. */
export interface Page<TRow> {
  readonly rows: TRow[];
  readonly nextCursor: string | null;
}

/** What an insert takes: the fields, and optionally a client-minted `id` (`generateId()`). */
export type InsertInput<TFields> = Partial<TFields> & { readonly id?: string };

/** `DELETE` answers this. */
export interface Deleted {
  readonly deleted: true;
  readonly id: string;
}

/** Options of an entity `insert`, `update` or `delete`. */
export interface EntityWriteOptions extends WriteCallOptions {
  /**
   * Show the change at once in the client's live subscriptions (and
   * `useQuery`), rolled back if the write fails; an insert without an
   * `id` gets a `generateId()` one first. Default false.
   */
  readonly optimistic?: boolean;
}

/** The three entity writes, as data (what the write queue keeps). */
export type EntityWrite =
  | {
      readonly kind: "insert";
      readonly entity: string;
      readonly data: Readonly<Record<string, unknown>>;
    }
  | {
      readonly kind: "update";
      readonly entity: string;
      readonly id: string;
      readonly patch: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: "delete"; readonly entity: string; readonly id: string };

const entityPath = (entity: string, id?: string): string =>
  `/api/entities/${encodeURIComponent(entity)}${id === undefined ? "" : `/${encodeURIComponent(id)}`}`;

/** The request of an entity write. */
export function entityWriteRequest(write: EntityWrite): TransportRequest {
  switch (write.kind) {
    case "insert":
      return { method: "POST", path: entityPath(write.entity), body: write.data };
    case "update":
      return { method: "PATCH", path: entityPath(write.entity, write.id), body: write.patch };
    case "delete":
      return { method: "DELETE", path: entityPath(write.entity, write.id) };
  }
}

/** The optimistic change an entity write shows (an insert's data must carry its id). */
export function entityWriteChange(write: EntityWrite): OptimisticChange {
  switch (write.kind) {
    case "insert": {
      const { id, ...row } = write.data;
      return { op: "insert", entity: write.entity, id: String(id), row };
    }
    case "update":
      return { op: "update", entity: write.entity, id: write.id, patch: write.patch };
    case "delete":
      return { op: "delete", entity: write.entity, id: write.id };
  }
}

/** What entity writes are sent with. */
export interface EntityContext {
  readonly transport: Transport;
  readonly writes: WriteSender;
  readonly optimistic: OptimisticStore;
}

/** REST access to one entity (`/api/entities/<Entity>`), checked against its policies. */
export interface EntityCollection<TFields> {
  /** One page; `nextCursor` comes from the `X-Next-Cursor` header. */
  list(options?: ListOptions<TFields>): Promise<Page<EntityRow<TFields>>>;
  /** Every page in order, following `nextCursor` (`cursor` in `options` starts later). */
  pages(options?: ListOptions<TFields>): AsyncIterableIterator<Page<EntityRow<TFields>>>;
  /** Every row of every page, in order (`for await (const row of todos.rows({ order: "-createdAt" }))`). */
  rows(options?: ListOptions<TFields>): AsyncIterableIterator<EntityRow<TFields>>;
  /** Every row, `id` ascending: `for await (const row of client.entities("Todo"))`. */
  [Symbol.asyncIterator](): AsyncIterator<EntityRow<TFields>>;
  /** One row; 404 `NOT_FOUND` when it does not exist or the caller may not see it. */
  get(id: string, options?: CallOptions): Promise<EntityRow<TFields>>;
  /**
   * Inserts a row (201) and answers it as stored; an `id` of 40 lowercase
   * hex is kept. Sent with an `Idempotency-Key` (see `WriteOptions`).
   */
  insert(data: InsertInput<TFields>, options?: EntityWriteOptions): Promise<EntityRow<TFields>>;
  /** Changes the given fields; `null` clears an optional one. */
  update(
    id: string,
    patch: Partial<TFields>,
    options?: EntityWriteOptions,
  ): Promise<EntityRow<TFields>>;
  delete(id: string, options?: EntityWriteOptions): Promise<Deleted>;
}

/** Builds `client.entities(name)`. */
export function createEntityCollection<TFields>(
  context: EntityContext,
  name: string,
): EntityCollection<TFields> {
  type Row = EntityRow<TFields>;
  const { transport, writes, optimistic } = context;
  const base = entityPath(name);
  const one = (id: string): string => entityPath(name, id);
  const signalOf = (options: CallOptions | undefined) =>
    options?.signal === undefined ? {} : { signal: options.signal };

  const write = async <T>(
    entityWrite: EntityWrite,
    options: EntityWriteOptions | undefined,
  ): Promise<T> => {
    const key = writes.keyFor(options?.idempotencyKey);
    const request = { ...entityWriteRequest(entityWrite), ...signalOf(options) };
    const send = async (): Promise<T> => (await writes.send<T>(request, key)).data;
    if (options?.optimistic !== true) return send();
    return withOptimistic(optimistic, [entityWriteChange(entityWrite)], send, rowOfAnswer);
  };

  const list = async (options: ListOptions<TFields> = {}): Promise<Page<Row>> => {
    const response = await transport.request<Row[]>({
      method: "GET",
      path: base,
      query: {
        where: options.where === undefined ? undefined : JSON.stringify(options.where),
        order: options.order,
        limit: options.limit === undefined ? undefined : String(options.limit),
        cursor: options.cursor,
      },
      ...signalOf(options),
    });
    return { rows: response.data, nextCursor: response.headers.get("x-next-cursor") };
  };

  async function* pages(options: ListOptions<TFields> = {}): AsyncIterableIterator<Page<Row>> {
    let cursor = options.cursor;
    for (;;) {
      const page = await list({ ...options, ...(cursor !== undefined && { cursor }) });
      yield page;
      if (page.nextCursor === null) return;
      cursor = page.nextCursor;
    }
  }

  async function* rows(options: ListOptions<TFields> = {}): AsyncIterableIterator<Row> {
    for await (const page of pages(options)) yield* page.rows;
  }

  return {
    list,
    pages,
    rows,
    [Symbol.asyncIterator]: () => rows(),
    async get(id, options) {
      return (await transport.request<Row>({ method: "GET", path: one(id), ...signalOf(options) }))
        .data;
    },
    insert: (data, options) =>
      write<Row>(
        {
          kind: "insert",
          entity: name,
          data:
            options?.optimistic === true && data.id === undefined
              ? { ...data, id: generateId() }
              : data,
        },
        options,
      ),
    update: (id, patch, options) =>
      write<Row>({ kind: "update", entity: name, id, patch }, options),
    delete: (id, options) => write<Deleted>({ kind: "delete", entity: name, id }, options),
  };
}
