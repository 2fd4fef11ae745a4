import {
  type CompiledQuery,
  type DeleteQueryNode,
  type InsertQueryNode,
  type OperationNode,
  type QueryId,
  type ReturningNode,
  type SelectQueryNode,
  SqliteQueryCompiler,
  type UpdateQueryNode,
} from "kysely";
import { D1DriverError } from "./d1-errors.js";
import { keyOf, type Overlay, type OverlayRow } from "./overlay.js";
import { quoteId, type TableInfo } from "./table-info.js";

/** Runs a read inside the transaction (through the overlay). */
export type ReadRows = (sql: string, parameters: readonly unknown[]) => Promise<OverlayRow[]>;

/** What a write statement did, as the overlay computed it before the commit. */
export interface SimulatedWrite {
  readonly rows: OverlayRow[];
  readonly affected: number;
}

interface WriteContext {
  readonly overlay: Overlay;
  readonly tableInfo: (table: string) => Promise<TableInfo>;
  readonly read: ReadRows;
}

/** A statement the edge cannot run inside a transaction (named, so the log says which). */
export class UnsupportedStatementError extends Error {
  override readonly name = "UnsupportedStatementError";
}

const compiler = new SqliteQueryCompiler();

/** The store's prepared insert: `insert into "T" ("a", ...) values (?, ...) returning ...`. */
const RAW_INSERT =
  /^insert into "((?:[^"]|"")+)" \(([^)]*)\) values \(((?:\?, )*\?)\)(?: returning (.+))?$/i;

function unquote(name: string): string {
  const trimmed = name.trim();
  return trimmed.startsWith('"') ? trimmed.slice(1, -1).replaceAll('""', '"') : trimmed;
}

function tableName(node: OperationNode | undefined): string {
  const table =
    node?.kind === "AliasNode" ? (node as unknown as { node: OperationNode }).node : node;
  if (table?.kind !== "TableNode")
    throw new UnsupportedStatementError("edge: write without a table");
  const { schema, identifier } = (
    table as unknown as {
      table: { schema?: { name: string }; identifier: { name: string } };
    }
  ).table;
  if (schema !== undefined && schema.name !== "main") {
    throw new UnsupportedStatementError("edge: writes to another schema");
  }
  return identifier.name;
}

function columnName(node: OperationNode): string {
  if (node.kind === "ColumnNode")
    return (node as unknown as { column: { name: string } }).column.name;
  if (node.kind === "ReferenceNode") {
    const column = (node as unknown as { column: OperationNode }).column;
    if (column.kind === "SelectAllNode") return "*";
    return columnName(column);
  }
  throw new UnsupportedStatementError(`edge: ${node.kind} where a column was expected`);
}

/** The column names a `returning` clause asks for (`*` expands to every column). */
function returningColumns(info: TableInfo, returning: ReturningNode | undefined): string[] | null {
  if (returning === undefined) return null;
  return returning.selections.flatMap((selection) => {
    const node = selection.selection;
    if (node.kind === "SelectAllNode") return [...info.columns];
    if (node.kind === "AliasNode") {
      throw new UnsupportedStatementError("edge: aliased returning inside a transaction");
    }
    const name = columnName(node);
    return name === "*" ? [...info.columns] : [name];
  });
}

function project(rows: OverlayRow[], columns: string[] | null): OverlayRow[] {
  if (columns === null) return [];
  return rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column]])));
}

function identifier(name: string): OperationNode {
  return { kind: "IdentifierNode", name } as unknown as OperationNode;
}

function column(name: string): OperationNode {
  return { kind: "ColumnNode", column: identifier(name) } as unknown as OperationNode;
}

function selection(expression: OperationNode, alias: string): OperationNode {
  return {
    kind: "SelectionNode",
    selection: { kind: "AliasNode", node: expression, alias: identifier(alias) },
  } as unknown as OperationNode;
}

/** `select <expressions as their columns> from "table" where <where>` (the where of a write). */
function derivedSelect(
  table: string,
  selections: OperationNode[],
  where: OperationNode | undefined,
  queryId: QueryId,
): CompiledQuery {
  const node = {
    kind: "SelectQueryNode",
    from: {
      kind: "FromNode",
      froms: [
        {
          kind: "TableNode",
          table: { kind: "SchemableIdentifierNode", identifier: identifier(table) },
        },
      ],
    },
    selections,
    ...(where !== undefined && { where }),
  } as unknown as SelectQueryNode;
  return compiler.compileQuery(node, queryId);
}

const OLD_KEY = "__svc_old_key_";

async function checkUnique(
  context: WriteContext,
  info: TableInfo,
  row: OverlayRow,
  replacing: string | null,
): Promise<void> {
  const key = keyOf(info, row);
  if (key !== replacing) {
    const sameKey = info.primaryKey.map((name) => `${quoteId(name)} = ?`).join(" and ");
    const found = await context.read(
      `select 1 from ${quoteId(info.name)} where ${sameKey} limit 1`,
      info.primaryKey.map((name) => row[name]),
    );
    if (found.length > 0) {
      throw new D1DriverError(
        "SQLITE_CONSTRAINT_PRIMARYKEY",
        `UNIQUE constraint failed: ${info.primaryKey.map((name) => `${info.name}.${name}`).join(", ")}`,
      );
    }
  }
  for (const unique of info.uniques) {
    const values = unique.columns.map((name) => row[name]);
    if (values.some((value) => value === null || value === undefined)) continue;
    const same = unique.columns.map((name) => `${quoteId(name)} = ?`).join(" and ");
    const notSelf = info.primaryKey.map((name) => `${quoteId(name)} is not ?`).join(" or ");
    const found = await context.read(
      `select 1 from ${quoteId(info.name)} where ${same} and (${notSelf}) limit 1`,
      [...values, ...info.primaryKey.map((name) => row[name])],
    );
    if (found.length > 0) {
      throw new D1DriverError(
        "SQLITE_CONSTRAINT_UNIQUE",
        `UNIQUE constraint failed: ${unique.columns.map((name) => `${info.name}.${name}`).join(", ")}`,
      );
    }
  }
}

async function defaultsOf(context: WriteContext, info: TableInfo, missing: number[]) {
  const withDefault = missing.filter((i) => info.defaults[i] !== null);
  if (withDefault.length === 0) return new Map<number, unknown>();
  const [row] = await context.read(
    `select ${withDefault.map((i) => `(${info.defaults[i]}) as ${quoteId(`d${i}`)}`).join(", ")}`,
    [],
  );
  return new Map(withDefault.map((i) => [i, row?.[`d${i}`] ?? null]));
}

async function insertRows(
  context: WriteContext,
  info: TableInfo,
  columns: readonly string[],
  valueLists: readonly (readonly unknown[])[],
  returning: string[] | null,
): Promise<SimulatedWrite> {
  const missing = info.columns.flatMap((name, i) => (columns.includes(name) ? [] : [i]));
  const defaults = await defaultsOf(context, info, missing);
  const written: OverlayRow[] = [];
  for (const values of valueLists) {
    const row: OverlayRow = {};
    for (const [i, name] of info.columns.entries()) {
      const at = columns.indexOf(name);
      row[name] = at === -1 ? (defaults.get(i) ?? null) : values[at];
    }
    await checkUnique(context, info, row, null);
    context.overlay.set(info, keyOf(info, row), row);
    written.push(row);
  }
  return { rows: project(written, returning), affected: written.length };
}

function insertedValue(node: OperationNode): unknown {
  if (node.kind === "ValueNode") return (node as unknown as { value: unknown }).value;
  throw new UnsupportedStatementError(`edge: ${node.kind} as an inserted value`);
}

async function simulateInsert(
  context: WriteContext,
  node: InsertQueryNode,
): Promise<SimulatedWrite> {
  if (
    node.onConflict !== undefined ||
    node.orAction !== undefined ||
    node.replace === true ||
    node.with !== undefined ||
    node.defaultValues === true
  ) {
    throw new UnsupportedStatementError(
      "edge: insert with on conflict, or, replace, with or default values inside a transaction",
    );
  }
  const info = await context.tableInfo(tableName(node.into));
  const columns = (node.columns ?? []).map((item) => item.column.name);
  const values = node.values;
  if (values?.kind !== "ValuesNode") {
    throw new UnsupportedStatementError("edge: insert from a select inside a transaction");
  }
  const lists = (values as unknown as { values: OperationNode[] }).values.map((item) => {
    if (item.kind === "PrimitiveValueListNode") {
      return (item as unknown as { values: unknown[] }).values;
    }
    if (item.kind === "ValueListNode") {
      return (item as unknown as { values: OperationNode[] }).values.map(insertedValue);
    }
    throw new UnsupportedStatementError(`edge: ${item.kind} in insert values`);
  });
  return insertRows(context, info, columns, lists, returningColumns(info, node.returning));
}

async function simulateRawInsert(
  context: WriteContext,
  sql: string,
  parameters: readonly unknown[],
): Promise<SimulatedWrite | null> {
  const match = RAW_INSERT.exec(sql.trim());
  if (match === null) return null;
  const info = await context.tableInfo(unquote(match[1] as string));
  const columns = (match[2] as string).split(",").map(unquote);
  if (columns.length !== parameters.length) return null;
  const returning =
    match[4] === undefined
      ? null
      : match[4].trim() === "*"
        ? [...info.columns]
        : match[4].split(",").map(unquote);
  return insertRows(context, info, columns, [parameters], returning);
}

async function simulateUpdate(
  context: WriteContext,
  node: UpdateQueryNode,
  queryId: QueryId,
): Promise<SimulatedWrite> {
  if (
    node.from !== undefined ||
    node.joins !== undefined ||
    node.with !== undefined ||
    node.limit !== undefined ||
    node.orderBy !== undefined
  ) {
    throw new UnsupportedStatementError("edge: update with from, join, with, limit or order by");
  }
  const info = await context.tableInfo(tableName(node.table));
  const updates = new Map(
    (node.updates ?? []).map((update) => [columnName(update.column), update.value]),
  );
  const selections = [
    ...info.primaryKey.map((name, i) => selection(column(name), `${OLD_KEY}${i}`)),
    ...info.columns.map((name) => selection(updates.get(name) ?? column(name), name)),
  ];
  const query = derivedSelect(info.name, selections, node.where, queryId);
  const found = await context.read(query.sql, query.parameters);
  const rows: OverlayRow[] = [];
  for (const result of found) {
    const oldKey = JSON.stringify(info.primaryKey.map((_, i) => result[`${OLD_KEY}${i}`] ?? null));
    const row = Object.fromEntries(info.columns.map((name) => [name, result[name] ?? null]));
    await checkUnique(context, info, row, oldKey);
    const key = keyOf(info, row);
    if (key !== oldKey) context.overlay.set(info, oldKey, null);
    context.overlay.set(info, key, row);
    rows.push(row);
  }
  return { rows: project(rows, returningColumns(info, node.returning)), affected: rows.length };
}

async function simulateDelete(
  context: WriteContext,
  node: DeleteQueryNode,
  queryId: QueryId,
): Promise<SimulatedWrite> {
  if (
    node.using !== undefined ||
    node.joins !== undefined ||
    node.with !== undefined ||
    node.limit !== undefined ||
    node.orderBy !== undefined ||
    node.from.froms.length !== 1
  ) {
    throw new UnsupportedStatementError("edge: delete with using, join, with, limit or order by");
  }
  const info = await context.tableInfo(tableName(node.from.froms[0]));
  const query = derivedSelect(
    info.name,
    info.columns.map((name) => selection(column(name), name)),
    node.where,
    queryId,
  );
  const rows = await context.read(query.sql, query.parameters);
  for (const row of rows) context.overlay.set(info, keyOf(info, row), null);
  return { rows: project(rows, returningColumns(info, node.returning)), affected: rows.length };
}

/**
 * Computes what a write statement would do against the transaction's view
 * (the database plus the overlay), checks the primary key and unique
 * indexes the way SQLite would, and records the written rows in the overlay.
 * Null when the statement is not a write this supports.
 */
export function simulateWrite(
  context: WriteContext,
  query: CompiledQuery,
): Promise<SimulatedWrite> | null {
  const node = query.query;
  switch (node.kind) {
    case "InsertQueryNode":
      return simulateInsert(context, node);
    case "UpdateQueryNode":
      return simulateUpdate(context, node, query.queryId);
    case "DeleteQueryNode":
      return simulateDelete(context, node, query.queryId);
    case "RawNode":
      return simulateRawInsert(context, query.sql, query.parameters).then((result) => {
        if (result === null) {
          throw new UnsupportedStatementError("edge: a raw write statement inside a transaction");
        }
        return result;
      });
    default:
      return null;
  }
}
