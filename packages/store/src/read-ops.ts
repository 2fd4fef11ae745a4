import type { AuthContext } from "@svc/schema";
import type { ExpressionBuilder, Kysely } from "kysely";
import type { AccessControl, AccessOperation, ReadFilter } from "./access.js";
import type { CursorCodec } from "./cursor.js";
import type { EntityTables, StoreDialect } from "./database.js";
import { dialectFor } from "./dialect/dialect-for.js";
import type { EntityModel } from "./entity-model.js";
import { nameForMessage, StoreError } from "./errors.js";
import { type NormalizedQuery, normalizeFilters, normalizeQuery } from "./query-options.js";
import { startSpan } from "./tracing.js";
import type { CountOptions, Page, QueryOptions, Row } from "./types.js";

/** What every read and write operation works with. */
export interface OperationContext {
  readonly db: Kysely<EntityTables>;
  readonly dialect: StoreDialect;
  readonly models: ReadonlyMap<string, EntityModel>;
  readonly access: AccessControl;
  readonly auth: AuthContext;
  /** Signs and checks the page cursors. */
  readonly cursors: CursorCodec;
}

/** The entity's model, or `ENTITY_NOT_FOUND`. */
export function findModel(ctx: OperationContext, entity: string): EntityModel {
  const model = typeof entity === "string" ? ctx.models.get(entity) : undefined;
  if (model !== undefined) return model;
  throw new StoreError("ENTITY_NOT_FOUND", {
    message: `There is no entity named ${nameForMessage(entity)}.`,
  });
}

/**
 * Passes the entity-level gate for `op` (else `POLICY_DENIED`) and returns
 * the condition that limits which rows the caller sees.
 */
export function authorize(
  ctx: OperationContext,
  model: EntityModel,
  op: AccessOperation,
): ReadFilter | null {
  const span = startSpan("policy.check", {
    "svc.entity": model.name,
    "svc.policy.action": op,
    "svc.policy.stage": "entity",
  });
  try {
    const decision = ctx.access.checkEntity(ctx.auth, model, op);
    span.setAttribute("svc.policy.allowed", decision.allowed);
    if (!decision.allowed) throw new StoreError("POLICY_DENIED", { message: decision.message });
    const filter = ctx.access.readFilter(ctx.auth, model);
    // Whether the caller sees only some rows (the policy became a WHERE).
    span.setAttribute("svc.policy.row_filter", filter !== null);
    return filter;
  } finally {
    span.end();
  }
}

/** One row by id, as the caller may see it; `lock` takes a row lock on Postgres. */
export async function selectRow(
  ctx: OperationContext,
  model: EntityModel,
  id: string,
  filter: ReadFilter | null,
  lock = false,
): Promise<Row | null> {
  let query = ctx.db.selectFrom(model.name).select(model.columns).where("id", "=", id);
  if (filter !== null) query = query.where(filter);
  if (lock) query = dialectFor(ctx.dialect).lockForUpdate(query);
  const row = await query.executeTakeFirst();
  return row === undefined ? null : model.decode(row);
}

type Builder = ExpressionBuilder<EntityTables, string>;

/**
 * Keyset condition for "strictly after the cursor row" under
 * `ORDER BY field <dir> NULLS FIRST|LAST, id <dir>`: ascending puts nulls
 * first, descending last, so null always sorts as the smallest value.
 */
function afterCursor(query: NormalizedQuery, after: { value: unknown; id: string }) {
  const idOp = query.direction === "asc" ? ">" : "<";
  const column = query.orderField?.name;
  return (eb: Builder) => {
    if (column === undefined) return eb("id", idOp, after.id);
    const sameValueLaterId = (valueCondition: ReturnType<Builder>) =>
      eb.and([valueCondition, eb("id", idOp, after.id)]);
    if (query.direction === "asc") {
      return after.value === null
        ? eb.or([sameValueLaterId(eb(column, "is", null)), eb(column, "is not", null)])
        : eb.or([eb(column, ">", after.value), sameValueLaterId(eb(column, "=", after.value))]);
    }
    return after.value === null
      ? sameValueLaterId(eb(column, "is", null))
      : eb.or([
          eb(column, "<", after.value),
          sameValueLaterId(eb(column, "=", after.value)),
          eb(column, "is", null),
        ]);
  };
}

/**
 * The query of one page: the rows the caller may see, filtered, sorted and
 * keyset-paginated, `limit + 1` of them (the extra row tells whether more follow).
 */
export function pageQuery(
  ctx: OperationContext,
  model: EntityModel,
  normalized: NormalizedQuery,
  filter: ReadFilter | null,
) {
  let query = ctx.db.selectFrom(model.name).select(model.columns);
  if (filter !== null) query = query.where(filter);
  for (const { column, value } of normalized.filters) {
    query = value === null ? query.where(column, "is", null) : query.where(column, "=", value);
  }
  if (normalized.after !== null) query = query.where(afterCursor(normalized, normalized.after));
  const orderField = normalized.orderField;
  if (orderField !== null) {
    query = query.orderBy(orderField.name, (ob) =>
      normalized.direction === "asc" ? ob.asc().nullsFirst() : ob.desc().nullsLast(),
    );
  }
  return query.orderBy("id", normalized.direction).limit(normalized.limit + 1);
}

/** One page of rows the caller may see, filtered, sorted and keyset-paginated. */
export async function selectPage(
  ctx: OperationContext,
  model: EntityModel,
  options: QueryOptions | undefined,
  filter: ReadFilter | null,
): Promise<Page> {
  const normalized = normalizeQuery(model, ctx.cursors, options);
  const rows = await pageQuery(ctx, model, normalized, filter).execute();
  const hasMore = rows.length > normalized.limit;
  if (hasMore) rows.pop();
  const decoded = rows.map(model.decode);
  const last = decoded[decoded.length - 1];
  const orderField = normalized.orderField;
  const nextCursor =
    hasMore && last !== undefined
      ? ctx.cursors.encode(model.name, {
          order: normalized.order,
          value: orderField === null ? null : last[orderField.name],
          id: last.id,
        })
      : null;
  return { rows: decoded, nextCursor };
}

/** Default and largest `max` of `Store.count`. */
const DEFAULT_COUNT_MAX = 100_000;
const COUNT_MAX_LIMIT = 1_000_000;

/**
 * How many rows the caller may see match `options.where`, counting at most
 * `max`: the rows are limited in a subquery, so a count never reads more.
 */
export async function countRows(
  ctx: OperationContext,
  model: EntityModel,
  options: CountOptions | undefined,
  filter: ReadFilter | null,
): Promise<number> {
  if (typeof options !== "object" && options !== undefined) {
    throw new StoreError("INVALID_QUERY", { message: "The count options must be an object." });
  }
  const max = options?.max ?? DEFAULT_COUNT_MAX;
  if (!Number.isInteger(max) || max < 1 || max > COUNT_MAX_LIMIT) {
    throw new StoreError("INVALID_QUERY", {
      message: `The count's max must be an integer from 1 to ${COUNT_MAX_LIMIT}.`,
    });
  }
  const filters = normalizeFilters(model, options?.where);
  let inner = ctx.db.selectFrom(model.name).select("id");
  if (filter !== null) inner = inner.where(filter);
  for (const { column, value } of filters) {
    inner = value === null ? inner.where(column, "is", null) : inner.where(column, "=", value);
  }
  const row = await ctx.db
    .selectFrom(inner.limit(max).as("counted"))
    .select((eb) => eb.fn.countAll<number | string | bigint>().as("count"))
    .executeTakeFirst();
  // Postgres answers count(*) as a bigint string.
  return Number(row?.count ?? 0);
}
