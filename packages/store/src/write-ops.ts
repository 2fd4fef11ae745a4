import { CompiledQuery, sql } from "kysely";
import type { AccessDecision } from "./access.js";
import { dialectFor } from "./dialect/dialect-for.js";
import {
  classifyDriverError,
  type DriverFailure,
  databaseError,
  hookError,
  uniqueViolation,
} from "./driver-errors.js";
import type { EntityModel } from "./entity-model.js";
import { StoreError } from "./errors.js";
import { existsResolver } from "./exists-lookup.js";
import {
  checkId,
  checkOwnerUnchanged,
  checkRowSize,
  encodeChanges,
  encodeRow,
  prepareInsert,
  preparePatch,
} from "./prepare-write.js";
import { authorize, findModel, type OperationContext, selectRow } from "./read-ops.js";
import type {
  BeforeDeleteHook,
  ChangeEvent,
  EntityWriter,
  FileReferenceCheck,
  Row,
  RowInput,
} from "./types.js";

/** A write operation's context: the transaction, its caller and its pending events. */
export interface WriteContext extends OperationContext {
  /** Events of this transaction, emitted after commit. */
  readonly events: ChangeEvent[];
  /** The injectable clock, as an ISO string. */
  readonly now: () => string;
  /** The before-delete hooks of an entity. */
  readonly beforeDelete: (entity: string) => readonly BeforeDeleteHook[];
  /** The registered check of file ids written to `file` fields, if any. */
  readonly fileCheck: () => FileReferenceCheck | undefined;
  /** A writer in this transaction with the admin token's rights, for hooks. */
  readonly systemWriter: () => EntityWriter;
  /** Rows whose delete is under way in this transaction (`Entity/id`): their hooks do not run twice. */
  readonly deleting: Set<string>;
}

function enforce(decision: AccessDecision): void {
  if (!decision.allowed) throw new StoreError("POLICY_DENIED", { message: decision.message });
}

function notFound(model: EntityModel, id: string): StoreError {
  return new StoreError("NOT_FOUND", { message: `There is no ${model.name} with id ${id}.` });
}

/**
 * Runs one writing statement. On Postgres a failed statement aborts the
 * whole transaction, so when a constraint may fail the statement runs inside
 * a savepoint: the caller can catch the store error and go on, as on SQLite.
 */
async function runStatement<T>(
  ctx: WriteContext,
  savepoint: boolean,
  run: () => Promise<T>,
  explain: (failure: DriverFailure, error: unknown) => StoreError | null,
): Promise<T> {
  const guard = savepoint && dialectFor(ctx.dialect).statementErrorAbortsTransaction;
  try {
    if (guard) await sql`savepoint svc_write`.execute(ctx.db);
    const result = await run();
    if (guard) await sql`release savepoint svc_write`.execute(ctx.db);
    return result;
  } catch (error) {
    if (guard) {
      try {
        await sql`rollback to savepoint svc_write`.execute(ctx.db);
        await sql`release savepoint svc_write`.execute(ctx.db);
      } catch (rollbackError) {
        throw databaseError(rollbackError);
      }
    }
    throw explain(classifyDriverError(error), error) ?? databaseError(error);
  }
}

/** Checks that every non-null id field points at an existing row (checked here so both dialects say the same). */
async function checkReferences(
  ctx: WriteContext,
  model: EntityModel,
  values: ReadonlyMap<string, unknown>,
  selfId: string,
): Promise<void> {
  for (const field of model.references) {
    const value = values.get(field.name);
    if (field.def.type !== "id" || value === null || value === undefined) continue;
    const target = field.def.target;
    if (target === model.name && value === selfId) continue;
    const found = await ctx.db
      .selectFrom(target)
      .select("id")
      .where("id", "=", value)
      .executeTakeFirst();
    if (found === undefined) {
      throw new StoreError("INVALID_REFERENCE", {
        message: `Field ${field.label} references a ${target} that does not exist.`,
      });
    }
  }
  const fileCheck = ctx.fileCheck();
  if (fileCheck === undefined) return;
  for (const field of model.fieldList) {
    const value = values.get(field.name);
    if (field.def.type !== "file" || typeof value !== "string") continue;
    const problem = await fileCheck({
      fileId: value,
      entity: model.name,
      field: field.name,
      auth: ctx.auth,
      db: ctx.db,
    });
    if (problem !== null) throw new StoreError("INVALID_REFERENCE", { message: problem });
  }
}

function referenceRace(
  model: EntityModel,
  failure: DriverFailure,
  cause: unknown,
): StoreError | null {
  if (failure.kind === "unique") return uniqueViolation(model, failure, cause);
  if (failure.kind === "foreignKey") {
    return new StoreError("INVALID_REFERENCE", {
      message: `A field of ${model.name} references a row that does not exist.`,
      cause,
    });
  }
  return null;
}

// An insert always writes every column in model order, so its SQL text is
// fixed per entity: build it with kysely once, then only bind new values.
const insertSQL = new WeakMap<EntityModel, string>();

async function executeInsert(
  ctx: WriteContext,
  model: EntityModel,
  values: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  let text = insertSQL.get(model);
  if (text === undefined) {
    text = ctx.db.insertInto(model.name).values(values).returning(model.columns).compile().sql;
    insertSQL.set(model, text);
  }
  const result = await ctx.db.executeQuery<Record<string, unknown>>(
    CompiledQuery.raw(
      text,
      model.columns.map((column) => values[column]),
    ),
  );
  const stored = result.rows[0];
  if (stored === undefined) throw new Error(`insert into ${model.name} returned no row`);
  return stored;
}

/** Inserts one row; see `EntityWriter.insert`. */
export async function insertRow(ctx: WriteContext, entity: string, data: RowInput): Promise<Row> {
  const model = findModel(ctx, entity);
  authorize(ctx, model, "insert");
  const row = prepareInsert(model, data, ctx.auth, ctx.now);
  // Encoded (and sizes checked) before any policy lookup or query runs.
  const values = encodeRow(model, row);
  enforce(
    await ctx.access.checkWrite(
      { auth: ctx.auth, entity: model, op: "insert", data: row, existing: null },
      existsResolver(ctx),
    ),
  );
  await checkReferences(ctx, model, new Map(Object.entries(row)), row.id);
  const mayConflict = model.uniqueIndexes.length > 0 || data.id !== undefined;
  const stored = await runStatement(
    ctx,
    mayConflict,
    () => executeInsert(ctx, model, values),
    (failure, cause) => referenceRace(model, failure, cause),
  );
  const result = model.decode(stored);
  ctx.events.push({ entity: model.name, op: "insert", id: result.id, row: result, previous: null });
  return result;
}

/** Changes the given fields of one row; see `EntityWriter.update`. */
export async function updateRow(
  ctx: WriteContext,
  entity: string,
  id: string,
  patch: RowInput,
): Promise<Row> {
  const model = findModel(ctx, entity);
  const filter = authorize(ctx, model, "update");
  const rowId = checkId(id);
  const changes = preparePatch(model, rowId, patch);
  const encoded = encodeChanges(model, changes);
  const existing = await selectRow(ctx, model, rowId, filter, true);
  if (existing === null) throw notFound(model, rowId);
  checkOwnerUnchanged(model, changes, existing);
  // An empty patch writes nothing, so it is not refused (even on a row stored before the bound).
  if (changes.size > 0) checkRowSize(model, encoded, existing);
  const data: Row = { ...existing, ...Object.fromEntries(changes) };
  enforce(
    await ctx.access.checkWrite(
      { auth: ctx.auth, entity: model, op: "update", data, existing },
      existsResolver(ctx),
    ),
  );
  const changedReferences = new Map(
    [...changes].filter(([name, value]) => value !== existing[name]),
  );
  await checkReferences(ctx, model, changedReferences, rowId);
  if (changes.size === 0) return existing;
  const stored = await runStatement(
    ctx,
    model.uniqueIndexes.length > 0,
    () =>
      ctx.db
        .updateTable(model.name)
        .set(encoded)
        .where("id", "=", rowId)
        .returning(model.columns)
        .executeTakeFirstOrThrow(),
    (failure, cause) => referenceRace(model, failure, cause),
  );
  const result = model.decode(stored);
  ctx.events.push({ entity: model.name, op: "update", id: rowId, row: result, previous: existing });
  return result;
}

/** Deletes one row; see `EntityWriter.delete`. */
export async function deleteRow(ctx: WriteContext, entity: string, id: string): Promise<void> {
  const model = findModel(ctx, entity);
  const filter = authorize(ctx, model, "delete");
  const rowId = checkId(id);
  const existing = await selectRow(ctx, model, rowId, filter, true);
  if (existing === null) throw notFound(model, rowId);
  enforce(
    await ctx.access.checkWrite(
      { auth: ctx.auth, entity: model, op: "delete", data: null, existing },
      existsResolver(ctx),
    ),
  );
  // Hooks run before the reference check: they are where referencing rows go.
  const key = `${model.name}/${rowId}`;
  const hooks = ctx.beforeDelete(model.name);
  if (hooks.length > 0 && !ctx.deleting.has(key)) {
    ctx.deleting.add(key);
    try {
      for (const hook of hooks) {
        try {
          await hook({ row: existing, db: ctx.systemWriter(), auth: ctx.auth });
        } catch (error) {
          throw hookError(error);
        }
      }
    } finally {
      ctx.deleting.delete(key);
    }
    // A hook may have deleted the row itself: then it is gone, as asked.
    if ((await selectRow(ctx, model, rowId, null, true)) === null) return;
  }
  for (const inbound of model.referencedBy) {
    let query = ctx.db.selectFrom(inbound.entity).select("id").where(inbound.field, "=", rowId);
    // A row that points at itself does not keep itself alive.
    if (inbound.entity === model.name) query = query.where("id", "!=", rowId);
    if ((await query.limit(1).executeTakeFirst()) !== undefined) {
      throw new StoreError("ROW_REFERENCED", {
        message: `This ${model.name} is still referenced by ${inbound.entity}.${inbound.field}; change or delete those rows first.`,
      });
    }
  }
  await runStatement(
    ctx,
    false,
    () => ctx.db.deleteFrom(model.name).where("id", "=", rowId).execute(),
    (failure, cause) =>
      failure.kind === "foreignKey"
        ? new StoreError("ROW_REFERENCED", {
            message: `This ${model.name} is still referenced by other rows; change or delete those rows first.`,
            cause,
          })
        : null,
  );
  ctx.events.push({ entity: model.name, op: "delete", id: rowId, row: null, previous: existing });
}
