import type { CallOptions, Transport } from "./transport.js";
import type { EntityRow } from "./types.js";

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
  /** Inserts a row (201) and answers it as stored; an `id` of 40 lowercase hex is kept. */
  insert(data: InsertInput<TFields>, options?: CallOptions): Promise<EntityRow<TFields>>;
  /** Changes the given fields; `null` clears an optional one. */
  update(id: string, patch: Partial<TFields>, options?: CallOptions): Promise<EntityRow<TFields>>;
  delete(id: string, options?: CallOptions): Promise<Deleted>;
}

/** Builds `client.entities(name)`. */
export function createEntityCollection<TFields>(
  transport: Transport,
  name: string,
): EntityCollection<TFields> {
  type Row = EntityRow<TFields>;
  const base = `/api/entities/${encodeURIComponent(name)}`;
  const one = (id: string): string => `${base}/${encodeURIComponent(id)}`;
  const signalOf = (options: CallOptions | undefined) =>
    options?.signal === undefined ? {} : { signal: options.signal };

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
    async insert(data, options) {
      return (
        await transport.request<Row>({
          method: "POST",
          path: base,
          body: data,
          ...signalOf(options),
        })
      ).data;
    },
    async update(id, patch, options) {
      return (
        await transport.request<Row>({
          method: "PATCH",
          path: one(id),
          body: patch,
          ...signalOf(options),
        })
      ).data;
    },
    async delete(id, options) {
      return (
        await transport.request<Deleted>({ method: "DELETE", path: one(id), ...signalOf(options) })
      ).data;
    },
  };
}
