import type { EntityDef, FieldKind, Manifest } from "./manifest.js";

/**
 * One column of a planned table. The implicit `id` column (a 40-character
 * text primary key) is never listed.
 */
export interface PlannedColumn {
  /** The field name, used verbatim as the column name. */
  readonly name: string;
  readonly kind: FieldKind;
  /** True for an optional field: the column may hold no value. */
  readonly nullable: boolean;
  /** True when the field is declared unique (it also gets a `<Entity>_<field>_key` index). */
  readonly unique: boolean;
  /** For an `id` field: the entity whose rows it points to. */
  readonly references?: string;
  /** For an `enum` field: the allowed values, in declaration order. */
  readonly values?: readonly string[];
}

/** One index of a planned table, named `<Entity>_<index>` or `<Entity>_<field>_key`. */
export interface PlannedIndex {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique: boolean;
}

/** One planned table: the storage shape of one entity. */
export interface PlannedTable {
  /** The entity name, used verbatim as the table name. */
  readonly name: string;
  readonly columns: readonly PlannedColumn[];
  readonly indexes: readonly PlannedIndex[];
}

/**
 * A dialect-neutral description of every table a manifest needs. Plain JSON
 * data: the store persists the plan it applied and diffs the next one
 * against it.
 */
export interface TablePlan {
  /** Bumped when the shape of the plan itself changes. */
  readonly formatVersion: 1;
  readonly tables: readonly PlannedTable[];
}

/** One additive schema change; the store turns each into DDL for its dialect. */
export type MigrationStep =
  | {
      readonly op: "createTable";
      readonly table: string;
      readonly columns: readonly PlannedColumn[];
    }
  | { readonly op: "addColumn"; readonly table: string; readonly column: PlannedColumn }
  | { readonly op: "createIndex"; readonly table: string; readonly index: PlannedIndex }
  | { readonly op: "dropIndex"; readonly table: string; readonly name: string };

/** What it takes to go from one plan to the next. */
export interface PlanDiff {
  /**
   * Additive steps in a safe order: dropped indexes first, then new tables
   * (referenced tables before the tables that point to them), new columns,
   * and new indexes last.
   */
  readonly steps: readonly MigrationStep[];
  /**
   * One sentence per change that would lose data or cannot be applied to
   * existing rows. When this is not empty the migration must not run.
   */
  readonly losses: readonly string[];
}

function planColumn(field: EntityDef["fields"][number]): PlannedColumn {
  const column: PlannedColumn = {
    name: field.name,
    kind: field.type,
    nullable: field.optional,
    unique: field.unique,
  };
  if (field.type === "id") return { ...column, references: field.target };
  if (field.type === "enum") return { ...column, values: [...field.values] };
  return column;
}

function planTable(entity: EntityDef): PlannedTable {
  const indexes: PlannedIndex[] = entity.fields
    .filter((field) => field.unique)
    .map((field) => ({
      name: `${entity.name}_${field.name}_key`,
      columns: [field.name],
      unique: true,
    }));
  for (const index of entity.indexes) {
    indexes.push({
      name: `${entity.name}_${index.name}`,
      columns: [...index.fields],
      unique: index.unique,
    });
  }
  return { name: entity.name, columns: entity.fields.map(planColumn), indexes };
}

/**
 * Describes the tables a validated manifest needs: one per entity, one
 * column per field, and the indexes for unique fields and declared indexes.
 *
 * @example
 * const plan = planTables(parseManifest(json));
 * plan.tables[0]?.indexes; // [{ name: "Todo_by_owner", columns: ["ownerId"], unique: false }]
 */
export function planTables(manifest: Manifest): TablePlan {
  return { formatVersion: 1, tables: manifest.entities.map(planTable) };
}

/** New tables ordered so a table comes after the new tables it references (cycles keep manifest order). */
function orderByReferences(tables: readonly PlannedTable[]): PlannedTable[] {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const ordered: PlannedTable[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (table: PlannedTable): void => {
    if (state.has(table.name)) return;
    state.set(table.name, "visiting");
    for (const column of table.columns) {
      const target = column.references === undefined ? undefined : byName.get(column.references);
      if (target) visit(target);
    }
    state.set(table.name, "done");
    ordered.push(table);
  };
  for (const table of tables) visit(table);
  return ordered;
}

function sameIndex(a: PlannedIndex, b: PlannedIndex): boolean {
  return (
    a.unique === b.unique &&
    a.columns.length === b.columns.length &&
    a.columns.every((column, i) => column === b.columns[i])
  );
}

function columnLosses(table: string, before: PlannedColumn, after: PlannedColumn): string[] {
  const name = `${table}.${before.name}`;
  if (before.kind !== after.kind) {
    return [
      `${name} would change from ${before.kind} to ${after.kind}; its stored values would be lost`,
    ];
  }
  const losses: string[] = [];
  if (before.references !== after.references) {
    losses.push(
      `${name} would point to ${after.references ?? "nothing"} instead of ${before.references ?? "nothing"}; its stored ids would no longer match`,
    );
  }
  if (before.nullable && !after.nullable) {
    losses.push(`${name} would become required; existing ${table} rows may have no value for it`);
  }
  const removed = (before.values ?? []).filter((value) => !(after.values ?? []).includes(value));
  if (removed.length > 0) {
    losses.push(
      `${name} would lose the enum value${removed.length > 1 ? "s" : ""} ${removed.join(", ")}; rows holding ${removed.length > 1 ? "them" : "it"} would become invalid`,
    );
  }
  return losses;
}

function diffTable(before: PlannedTable, after: PlannedTable): PlanDiff {
  const steps: MigrationStep[] = [];
  const losses: string[] = [];
  const afterColumns = new Map(after.columns.map((column) => [column.name, column]));
  const beforeColumns = new Map(before.columns.map((column) => [column.name, column]));
  for (const column of before.columns) {
    const next = afterColumns.get(column.name);
    if (next === undefined) losses.push(`${before.name}.${column.name} would be dropped`);
    else losses.push(...columnLosses(before.name, column, next));
  }
  for (const column of after.columns) {
    if (beforeColumns.has(column.name)) continue;
    if (column.nullable) steps.push({ op: "addColumn", table: after.name, column });
    else {
      losses.push(
        `${after.name}.${column.name} is a new required field; existing ${after.name} rows would have no value for it (add it as optional first)`,
      );
    }
  }
  return { steps, losses };
}

/**
 * Compares the plan a database was last migrated to (`previous`, null for
 * an empty database) with the plan of the current manifest. Additive changes
 * become `steps`; every destructive or impossible change becomes a sentence
 * in `losses` (a dropped entity or field, a changed kind or id target, an
 * optional field made required, a new required field on an existing table,
 * removed enum values). Added enum values and fields made optional need no
 * step: the store enforces both, not the column.
 *
 * @example
 * const { steps, losses } = diffTablePlans(stored, planTables(manifest));
 * if (losses.length > 0) throw new Error(losses.join("; "));
 */
export function diffTablePlans(previous: TablePlan | null, next: TablePlan): PlanDiff {
  const beforeTables = new Map((previous?.tables ?? []).map((table) => [table.name, table]));
  const afterNames = new Set(next.tables.map((table) => table.name));
  const losses: string[] = [];
  const dropIndexes: MigrationStep[] = [];
  const addColumns: MigrationStep[] = [];
  const createIndexes: MigrationStep[] = [];

  for (const table of beforeTables.values()) {
    if (!afterNames.has(table.name))
      losses.push(`${table.name} would be dropped with all its rows`);
  }
  const created: PlannedTable[] = [];
  for (const table of next.tables) {
    const before = beforeTables.get(table.name);
    if (before === undefined) {
      created.push(table);
      for (const index of table.indexes)
        createIndexes.push({ op: "createIndex", table: table.name, index });
      continue;
    }
    const diff = diffTable(before, table);
    addColumns.push(...diff.steps);
    losses.push(...diff.losses);
    const beforeIndexes = new Map(before.indexes.map((index) => [index.name, index]));
    const afterIndexes = new Map(table.indexes.map((index) => [index.name, index]));
    for (const index of before.indexes) {
      const kept = afterIndexes.get(index.name);
      if (kept === undefined || !sameIndex(index, kept)) {
        dropIndexes.push({ op: "dropIndex", table: table.name, name: index.name });
      }
    }
    for (const index of table.indexes) {
      const old = beforeIndexes.get(index.name);
      if (old === undefined || !sameIndex(old, index)) {
        createIndexes.push({ op: "createIndex", table: table.name, index });
      }
    }
  }
  const createTables: MigrationStep[] = orderByReferences(created).map((table) => ({
    op: "createTable",
    table: table.name,
    columns: table.columns,
  }));
  return { steps: [...dropIndexes, ...createTables, ...addColumns, ...createIndexes], losses };
}

/**
 * A short human-readable line for a step, e.g. `add column Todo.note` or
 * `create unique index Todo_email_key on Todo (email)`.
 */
export function describeMigrationStep(step: MigrationStep): string {
  switch (step.op) {
    case "createTable":
      return `create table ${step.table}`;
    case "addColumn":
      return `add column ${step.table}.${step.column.name}`;
    case "createIndex":
      return `create ${step.index.unique ? "unique " : ""}index ${step.index.name} on ${step.table} (${step.index.columns.join(", ")})`;
    case "dropIndex":
      return `drop index ${step.name}`;
  }
}
