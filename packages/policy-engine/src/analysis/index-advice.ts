import { type EntityDef, findEntity } from "@svc/schema";
import type { CompiledPolicies, CompiledRule, Condition, Operand } from "../condition.js";
import { leavesOf } from "./condition-leaves.js";

/** An index a rule's SQL would use, missing from the manifest. */
export interface IndexAdvice {
  readonly code: "UNINDEXED_FILTER" | "UNINDEXED_LOOKUP";
  readonly entity: string;
  /** The rule that filters or looks up. */
  readonly rule: CompiledRule;
  /** The columns, in index order. */
  readonly columns: readonly string[];
  /** The entry to add to the entity's `indexes` in the manifest (the store creates it). */
  readonly manifestIndex: {
    readonly name: string;
    readonly fields: readonly string[];
    readonly unique: false;
  };
  /** The same index as SQL (the store names it `<Entity>_<index>`). */
  readonly createIndex: string;
}

const SARGABLE = new Set(["==", "<", "<=", ">", ">="]);

/** True when the entity has an index (or unique field, or the id) leading with one of `columns`. */
function covered(entity: EntityDef, columns: readonly string[]): boolean {
  if (columns.includes("id")) return true;
  if (entity.fields.some((field) => field.unique && columns.includes(field.name))) return true;
  return entity.indexes.some(
    (index) => index.fields[0] !== undefined && columns.includes(index.fields[0]),
  );
}

const isConstant = (operand: Operand): boolean =>
  operand.kind === "literal" ||
  operand.kind === "auth" ||
  operand.kind === "role" ||
  operand.kind === "entitlement";

/** A column a read filters on: compared with a constant, by equality or by order. */
interface FilterColumn {
  readonly name: string;
  readonly equality: boolean;
  readonly bool: boolean;
}

function filterColumn(condition: Condition & { kind: "compare" }): FilterColumn | undefined {
  if (!SARGABLE.has(condition.op)) return undefined;
  for (const [a, b] of [
    [condition.left, condition.right],
    [condition.right, condition.left],
  ] as const) {
    if (
      a.kind === "field" &&
      a.scope === "data" &&
      isConstant(b) &&
      !(b.kind === "literal" && b.value === null)
    ) {
      return { name: a.field.name, equality: condition.op === "==", bool: a.field.type === "bool" };
    }
  }
  return undefined;
}

/**
 * The column groups a read filters on, outside negations: the columns
 * compared in one conjunction form one group (one composite index serves
 * them), each disjunct its own.
 */
function filterGroups(condition: Condition): FilterColumn[][] {
  switch (condition.kind) {
    case "compare": {
      const column = filterColumn(condition);
      return column === undefined ? [] : [[column]];
    }
    case "or":
      return condition.items.flatMap(filterGroups);
    case "and": {
      const direct: FilterColumn[] = [];
      const nested: FilterColumn[][] = [];
      for (const item of condition.items) {
        if (item.kind === "compare") {
          const column = filterColumn(item);
          if (column !== undefined) direct.push(column);
        } else nested.push(...filterGroups(item));
      }
      return direct.length > 0 ? [direct, ...nested] : nested;
    }
    default:
      return [];
  }
}

/** Index order: equalities on selective columns, then booleans, then orderings; a group of booleans alone needs none. */
function indexColumns(group: readonly FilterColumn[]): string[] {
  if (group.every((column) => column.bool)) return [];
  const rank = (column: FilterColumn) => (!column.equality ? 2 : column.bool ? 1 : 0);
  const sorted = [...group].sort((a, b) => rank(a) - rank(b));
  return [...new Set(sorted.map((column) => column.name))];
}

function lookups(condition: Condition, out: (Condition & { kind: "exists" })[]): void {
  for (const leaf of leavesOf(condition)) if (leaf.kind === "exists") out.push(leaf);
}

function advice(
  code: IndexAdvice["code"],
  entity: EntityDef,
  rule: CompiledRule,
  columns: readonly string[],
): IndexAdvice {
  const name = `by_${columns.join("_")}`;
  const quoted = columns.map((column) => `"${column}"`).join(", ");
  return {
    code,
    entity: entity.name,
    rule,
    columns,
    manifestIndex: { name, fields: columns, unique: false },
    createIndex: `CREATE INDEX "${entity.name}_${name}" ON "${entity.name}" (${quoted});`,
  };
}

/**
 * The indexes the rules' SQL would want and the manifest lacks: a read
 * rule's filter on its own row's columns (`auth.userId == data.ownerId` is
 * `"ownerId" = ?`; the columns of one conjunction, such as `data.status ==
 * 'published' && data.public`, want one composite index, equalities first,
 * booleans after, orderings last; booleans alone want none), and every `exists(E where f == ... && g == ...)`
 * lookup, which needs an index of E leading with one of its fields (the
 * advice: one on all of them, in the order written). The record id and
 * unique fields count as indexed. One piece of advice per entity and
 * column set.
 */
export function adviseIndexes(compiled: CompiledPolicies): IndexAdvice[] {
  const out: IndexAdvice[] = [];
  const seen = new Set<string>();
  const push = (item: IndexAdvice) => {
    const key = `${item.entity}:${item.columns.join(",")}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(item);
  };
  for (const [entityName, actions] of compiled.rules) {
    const entity = findEntity(compiled.manifest, entityName);
    if (entity === undefined) continue;
    for (const rule of actions.read) {
      for (const group of filterGroups(rule.condition)) {
        const columns = indexColumns(group);
        if (columns.length > 0 && !covered(entity, columns)) {
          push(advice("UNINDEXED_FILTER", entity, rule, columns));
        }
      }
    }
    for (const rules of Object.values(actions)) {
      for (const rule of rules) {
        const found: (Condition & { kind: "exists" })[] = [];
        lookups(rule.condition, found);
        for (const lookup of found) {
          const target = findEntity(compiled.manifest, lookup.entity);
          const columns = lookup.conditions.map((item) => item.field.name);
          if (target !== undefined && !covered(target, columns)) {
            push(advice("UNINDEXED_LOOKUP", target, rule, columns));
          }
        }
      }
    }
  }
  return out;
}
