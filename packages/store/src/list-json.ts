import { type AliasedRawBuilder, type RawBuilder, sql } from "kysely";
import type { ReadFilter } from "./access.js";
import type { StoreDialect } from "./database.js";
import type { EntityModel, FieldModel } from "./entity-model.js";
import { type NormalizedQuery, normalizeQuery } from "./query-options.js";
import { type OperationContext, pageQuery, selectPage } from "./read-ops.js";
import type { JSONPage, QueryOptions } from "./types.js";

// A list page as JSON text built by the database, for the HTTP list route:
// no driver row objects, no decoding, no JSON.stringify. Used only where
// the database writes exactly the bytes `JSON.stringify(page.rows)` would;
// everything else answers through the row path.

/** Every element of the page's array is an object whose first key is `id`. */
const ELEMENT_START = '{"id":"';

/**
 * Whether the database can write the entity's rows byte for byte as
 * `JSON.stringify` writes the decoded rows. Not with float fields (SQLite
 * and Postgres format doubles their own way: `5.0`, `1e-07`) or json fields
 * (SQLite re-serializes the text; Postgres writes jsonb with spaces).
 */
function encodesExactly(model: EntityModel): boolean {
  return model.fieldList.every((field) => field.def.type !== "float" && field.def.type !== "json");
}

/** `json_object(...)` of one page row on SQLite; bools from 0/1 as the decoder reads them. */
function sqliteObject(model: EntityModel): RawBuilder<string> {
  const pair = (name: string, kind: FieldModel["def"]["type"] | "id-key"): RawBuilder<unknown> => {
    const column = sql.ref(`page.${name}`);
    const value =
      kind === "bool"
        ? sql`json(case when ${column} is null then null when ${column} = 1 then 'true' else 'false' end)`
        : column;
    return sql`${sql.lit(name)}, ${value}`;
  };
  const pairs = [
    pair("id", "id-key"),
    ...model.fieldList.map((field) => pair(field.name, field.def.type)),
  ];
  return sql<string>`json_object(${sql.join(pairs)})`;
}

/**
 * The columns of one page row on Postgres as `row_to_json` should write
 * them: datetimes as the ISO 8601 text the pool's parser makes (UTC,
 * milliseconds truncated, `Z`); text, bigint and boolean as they are.
 */
function postgresColumns(model: EntityModel): AliasedRawBuilder<unknown, string>[] {
  return model.columns.map((name) => {
    const column = sql.ref(`page.${name}`);
    const field = model.fields.get(name);
    const value =
      field?.def.type === "datetime"
        ? sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
        : column;
    return value.as(name);
  });
}

/** The page's JSON text (up to `limit + 1` rows) and how many rows it holds. */
async function selectBody(
  ctx: OperationContext,
  model: EntityModel,
  normalized: NormalizedQuery,
  filter: ReadFilter | null,
): Promise<{ body: string; fetched: number }> {
  const rows = pageQuery(ctx, model, normalized, filter);
  const row = await PAGE_BODIES[ctx.dialect](ctx, model, rows);
  return { body: String(row.body), fetched: Number(row.fetched) };
}

type PageBody = (
  ctx: OperationContext,
  model: EntityModel,
  rows: ReturnType<typeof pageQuery>,
) => Promise<{ body: string; fetched: number }>;

const fetched = sql<number>`count(*)`.as("fetched");

/** How each dialect writes the page as one JSON array (the store's own per-dialect table). */
const PAGE_BODIES: Readonly<Record<StoreDialect, PageBody>> = {
  sqlite: (ctx, model, rows) =>
    ctx.db
      .selectFrom(rows.as("page"))
      .select([sql<string>`json_group_array(${sqliteObject(model)})`.as("body"), fetched])
      .executeTakeFirstOrThrow(),
  postgres: (ctx, model, rows) =>
    ctx.db
      .selectFrom(ctx.db.selectFrom(rows.as("page")).select(postgresColumns(model)).as("r"))
      .select([
        sql<string>`coalesce('[' || string_agg(row_to_json("r")::text, ',') || ']', '[]')`.as(
          "body",
        ),
        fetched,
      ])
      .executeTakeFirstOrThrow(),
};

/**
 * Where each element of `body` starts and its id, checked to be `fetched`
 * elements in the page's order; null when the text is not that (the caller
 * then falls back to the row path). A field's string value cannot contain
 * the start marker: its quotes are escaped.
 */
function elementsOf(
  body: string,
  fetched: number,
  direction: "asc" | "desc",
): { starts: number[]; ids: string[] } | null {
  const starts: number[] = [];
  const ids: string[] = [];
  let from = 0;
  for (;;) {
    const at = body.indexOf(ELEMENT_START, from);
    if (at === -1) break;
    const idStart = at + ELEMENT_START.length;
    const idEnd = body.indexOf('"', idStart);
    if (idEnd === -1) return null;
    const id = body.slice(idStart, idEnd);
    const previous = ids[ids.length - 1];
    // The aggregate is fed in the subquery's order; check it rather than trust it.
    if (previous !== undefined && (direction === "asc" ? id <= previous : id >= previous)) {
      return null;
    }
    starts.push(at);
    ids.push(id);
    from = idEnd;
  }
  return starts.length === fetched ? { starts, ids } : null;
}

/**
 * One page of rows the caller may see as JSON text: exactly
 * `JSON.stringify(selectPage(...).rows)` and the same `nextCursor`. The
 * database writes the text when it can write every field the same way and
 * the page is sorted by id; otherwise the rows are read and stringified.
 */
export async function selectPageJSON(
  ctx: OperationContext,
  model: EntityModel,
  options: QueryOptions | undefined,
  filter: ReadFilter | null,
): Promise<JSONPage> {
  const normalized = normalizeQuery(model, ctx.cursors, options);
  if (normalized.orderField === null && encodesExactly(model)) {
    const { body, fetched } = await selectBody(ctx, model, normalized, filter);
    const elements = elementsOf(body, fetched, normalized.direction);
    if (elements !== null) {
      const { starts, ids } = elements;
      const limit = normalized.limit;
      if (fetched <= limit) return { json: body, nextCursor: null };
      // Drop the extra row (and the comma before it); the cursor is the last row kept.
      const json = `${body.slice(0, (starts[limit] ?? body.length) - 1)}]`;
      const id = ids[limit - 1] ?? "";
      const nextCursor = ctx.cursors.encode(model.name, {
        order: normalized.order,
        value: null,
        id,
      });
      return { json, nextCursor };
    }
  }
  const page = await selectPage(ctx, model, options, filter);
  return { json: JSON.stringify(page.rows), nextCursor: page.nextCursor };
}
