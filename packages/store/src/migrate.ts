import { policySqlDialect } from "@svc/policy-engine";
import {
  describeMigrationStep,
  diffTablePlans,
  type FieldKind,
  type MigrationStep,
  type PlannedColumn,
  SchemaError,
  type TablePlan,
} from "@svc/schema";
import { type Expression, type Kysely, sql } from "kysely";
import type { EntityTables, StoreDialect } from "./database.js";
import { dialectFor } from "./dialect/dialect-for.js";
import { StoreError } from "./errors.js";
import { applyPackageMigrations, type PackageMigrations } from "./package-migrations.js";
import type { MigrationReport } from "./types.js";

/** The table holding the plan the database was last migrated to. */
const SCHEMA_TABLE = "_svc_schema";
// Any constant works: it only has to be the same for every svc process.
const MIGRATION_LOCK_KEY = 7_361_042;

/**
 * The SQL type of a field kind's column on a dialect. The policy engine owns
 * the layout (its compiled filters assume it, e.g. Postgres text compared
 * bytewise with `COLLATE "C"`), so the tables are made from its map.
 */
function columnType(dialect: StoreDialect, kind: FieldKind): Expression<unknown> {
  return sql.raw(policySqlDialect(dialect).columnTypes[kind]);
}

type Db = Kysely<EntityTables>;

async function readStoredPlan(db: Db): Promise<TablePlan | null> {
  const row = await db
    .selectFrom(SCHEMA_TABLE)
    .select("plan")
    .where("id", "=", 1)
    .executeTakeFirst();
  if (row === undefined) return null;
  const plan: unknown = typeof row.plan === "string" ? JSON.parse(row.plan) : null;
  if (
    typeof plan !== "object" ||
    plan === null ||
    !("formatVersion" in plan) ||
    plan.formatVersion !== 1
  ) {
    throw new StoreError("MIGRATION_FAILED", {
      message: `The stored schema in ${SCHEMA_TABLE} has a format this version of svc does not know.`,
    });
  }
  return plan as TablePlan;
}

/**
 * Applies steps. On Postgres a foreign key may only name an existing table,
 * so a reference to a table created later in the same run (a cycle) is added
 * afterwards as a separate constraint; SQLite resolves references lazily.
 */
async function applySteps(
  db: Db,
  dialect: StoreDialect,
  previous: TablePlan | null,
  steps: readonly MigrationStep[],
): Promise<void> {
  const existing = new Set((previous?.tables ?? []).map((table) => table.name));
  const deferred: { table: string; column: PlannedColumn }[] = [];
  const referenceNow = (table: string, column: PlannedColumn): boolean =>
    column.references !== undefined &&
    (dialectFor(dialect).forwardReferences ||
      column.references === table ||
      existing.has(column.references));
  for (const step of steps) {
    switch (step.op) {
      case "createTable": {
        let builder = db.schema
          .createTable(step.table)
          .addColumn("id", columnType(dialect, "id"), (col) => col.primaryKey());
        for (const column of step.columns) {
          if (column.references !== undefined && !referenceNow(step.table, column)) {
            deferred.push({ table: step.table, column });
          }
          builder = builder.addColumn(column.name, columnType(dialect, column.kind), (col) =>
            referenceNow(step.table, column) ? col.references(`${column.references}.id`) : col,
          );
        }
        const suffix = dialectFor(dialect).entityTableSuffix;
        if (suffix !== undefined) builder = builder.modifyEnd(suffix);
        await builder.execute();
        existing.add(step.table);
        break;
      }
      case "addColumn":
        await db.schema
          .alterTable(step.table)
          .addColumn(step.column.name, columnType(dialect, step.column.kind), (col) =>
            step.column.references === undefined
              ? col
              : col.references(`${step.column.references}.id`),
          )
          .execute();
        break;
      case "createIndex": {
        const builder = db.schema
          .createIndex(step.index.name)
          .on(step.table)
          .columns([...step.index.columns]);
        await (step.index.unique ? builder.unique() : builder).execute();
        break;
      }
      case "dropIndex":
        await db.schema.dropIndex(step.name).ifExists().execute();
        break;
    }
  }
  for (const { table, column } of deferred) {
    await db.schema
      .alterTable(table)
      .addForeignKeyConstraint(
        `${table}_${column.name}_fkey`,
        [column.name],
        `${column.references}`,
        ["id"],
      )
      .execute();
  }
}

/** What `migrateDatabase` needs. */
export interface MigrateOptions {
  readonly db: Db;
  readonly dialect: StoreDialect;
  /** The plan of the current manifest. */
  readonly plan: TablePlan;
  /** Stamped into the schema table as the time of the change. */
  readonly now: Date;
  /** Framework packages' own tables, migrated in the same transaction after the entities. */
  readonly packages?: readonly PackageMigrations[];
}

/**
 * Brings the database up to `plan` in one transaction: reads the stored
 * plan, refuses (changing nothing) when the difference would lose data, and
 * otherwise applies the additive steps and stores the new plan.
 */
export async function migrateDatabase({
  db,
  dialect,
  plan,
  now,
  packages = [],
}: MigrateOptions): Promise<MigrationReport> {
  return db.transaction().execute(async (trx) => {
    // Two processes booting at once must not both apply the same steps.
    await dialectFor(dialect).lockTransaction(trx, MIGRATION_LOCK_KEY);
    await trx.schema
      .createTable(SCHEMA_TABLE)
      .ifNotExists()
      .addColumn("id", "integer", (col) => col.primaryKey())
      .addColumn("plan", "text", (col) => col.notNull())
      .addColumn("applied_at", "text", (col) => col.notNull())
      .execute();
    const previous = await readStoredPlan(trx);
    const { steps, losses } = diffTablePlans(previous, plan);
    if (losses.length > 0) {
      throw new SchemaError("DESTRUCTIVE_MIGRATION", {
        message: `Refusing to migrate: ${losses.join("; ")}.`,
        // Every loss sentence starts with the entity or `Entity.field` it is about.
        issues: losses.map((loss) => ({ path: loss.split(" ", 1)[0] ?? "", message: loss })),
      });
    }
    const applied = steps.map(describeMigrationStep);
    try {
      await applySteps(trx, dialect, previous, steps);
    } catch (error) {
      throw new StoreError("MIGRATION_FAILED", {
        message: `Could not apply the schema change (${applied.join("; ")}); the database is unchanged.`,
        cause: error,
      });
    }
    const text = JSON.stringify(plan);
    if (previous === null || JSON.stringify(previous) !== text) {
      const appliedAt = now.toISOString();
      await trx
        .insertInto(SCHEMA_TABLE)
        .values({ id: 1, plan: text, applied_at: appliedAt })
        .onConflict((oc) => oc.column("id").doUpdateSet({ plan: text, applied_at: appliedAt }))
        .execute();
    }
    applied.push(...(await applyPackageMigrations(trx, dialect, packages, now)));
    return { applied };
  });
}
