import { type Expression, type RawBuilder, type SqlBool, sql } from "kysely";
import { rulesFor } from "./compile-policies.js";
import type {
  CompiledPolicies,
  CompiledRule,
  Condition,
  FieldInfo,
  Operand,
  PolicyAuth,
} from "./condition.js";
import type { PolicyAction } from "./errors.js";
import { isNullLiteral, operandValue, type Scope } from "./evaluate.js";
import { compareResolved, type PolicyValue } from "./values.js";

/**
 * A read policy as SQL: a boolean expression for `.where(...)`, or `"all"` /
 * `"none"` when the caller's auth settles it without looking at rows.
 */
export type ReadFilter = Expression<SqlBool> | "all" | "none";

/** Options of `compileReadFilter`. */
export interface ReadFilterOptions {
  /**
   * The name (or alias) the outer query gives the entity's table; `exists`
   * subqueries use it to reach the outer row. Default: the entity name.
   */
  readonly table?: string;
}

type Fragment =
  | { readonly kind: "const"; readonly value: boolean }
  | { readonly kind: "sql"; readonly sql: RawBuilder<SqlBool> };

/** A resolved operand: a constant (bound as a parameter) or a column of a table. */
type SqlSide =
  | { readonly kind: "const"; readonly value: PolicyValue; readonly nullLiteral: boolean }
  | { readonly kind: "column"; readonly ref: RawBuilder<unknown>; readonly field: FieldInfo };

const TRUE: Fragment = { kind: "const", value: true };
const FALSE: Fragment = { kind: "const", value: false };
const NEGATED_OP = { "=": "<>", "<": ">=", "<=": ">", ">": "<=", ">=": "<" } as const;
const MIRRORED_OP = { "=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<=" } as const;
type SqlOp = keyof typeof NEGATED_OP;

function combine(kind: "and" | "or", parts: readonly Fragment[]): Fragment {
  // false absorbs an AND, true absorbs an OR.
  const absorbing = kind === "or";
  const kept: RawBuilder<SqlBool>[] = [];
  for (const part of parts) {
    if (part.kind === "const") {
      if (part.value === absorbing) return part;
      continue;
    }
    kept.push(part.sql);
  }
  const [only] = kept;
  if (only === undefined) return absorbing ? FALSE : TRUE;
  if (kept.length === 1) return { kind: "sql", sql: only };
  const joined = sql.join(kept, sql.raw(kind === "and" ? " and " : " or "));
  return { kind: "sql", sql: sql<SqlBool>`(${joined})` };
}

function nullChecks(sides: readonly SqlSide[]): Fragment[] {
  const checks: Fragment[] = [];
  for (const side of sides) {
    if (side.kind === "column" && side.field.nullable) {
      checks.push({ kind: "sql", sql: sql<SqlBool>`${side.ref} is null` });
    }
  }
  return checks;
}

/** A constant as a bound parameter; numbers an integer column could not parse are cast. */
function bind(value: string | number): RawBuilder<unknown> {
  if (typeof value === "number" && !Number.isSafeInteger(value)) {
    return sql`cast(${value} as double precision)`;
  }
  return sql`${value}`;
}

/** `column` is true (`want`) or, negated, is not. Never binds a boolean: SQLite cannot. */
function boolTest(
  column: SqlSide & { kind: "column" },
  want: boolean,
  positive: boolean,
): Fragment {
  const isTrue = want === positive;
  const test = isTrue ? sql<SqlBool>`${column.ref}` : sql<SqlBool>`not ${column.ref}`;
  return positive
    ? { kind: "sql", sql: test }
    : combine("or", [{ kind: "sql", sql: test }, ...nullChecks([column])]);
}

/** Which table (or alias) holds each row a rule reads, for `compileAccessFilter`. */
export interface RowTables {
  /** The table or alias holding `data` (the row read, or the row to insert, or the merged row). */
  readonly data?: string;
  /** The table or alias holding `existing` (the stored row of an update or delete). */
  readonly existing?: string;
}

class FilterCompiler {
  private aliases = 0;

  constructor(
    private readonly scope: Scope,
    private readonly table: string,
    private readonly rows: RowTables | undefined = undefined,
  ) {}

  /** `qualified` names the outer table, as a reference from inside a subquery must. */
  private side(operand: Operand, qualified: boolean): SqlSide {
    if (operand.kind === "field") {
      const alias =
        operand.scope === "data" || operand.scope === "existing"
          ? this.rows?.[operand.scope]
          : undefined;
      const name = operand.field.name;
      let ref: RawBuilder<unknown>;
      if (alias !== undefined) ref = sql.id(alias, name);
      else ref = qualified ? sql.id(this.table, name) : sql.id(name);
      return { kind: "column", ref, field: operand.field };
    }
    return {
      kind: "const",
      value: operandValue(operand, this.scope),
      nullLiteral: isNullLiteral(operand),
    };
  }

  /** SQL true exactly when the condition holds (`positive`) or fails (`!positive`); NULL counts as false. */
  compile(condition: Condition, positive: boolean): Fragment {
    switch (condition.kind) {
      case "and":
      case "or": {
        const parts = condition.items.map((item) => this.compile(item, positive));
        const and = (condition.kind === "and") === positive;
        return combine(and ? "and" : "or", parts);
      }
      case "not":
        return this.compile(condition.item, !positive);
      case "truthy": {
        const side = this.side(condition.operand, false);
        if (side.kind === "const") return (side.value === true) === positive ? TRUE : FALSE;
        return boolTest(side, true, positive);
      }
      case "compare":
        return this.compare(condition, positive);
      case "exists":
        return this.exists(condition, positive);
    }
  }

  private compare(condition: Condition & { kind: "compare" }, positive: boolean): Fragment {
    let left = this.side(condition.left, false);
    let right = this.side(condition.right, false);
    if (left.kind === "const" && right.kind === "const") {
      const value = compareResolved(condition.op, left, right, condition.as);
      return value === positive ? TRUE : FALSE;
    }
    let op: SqlOp;
    if (condition.op === "!=") {
      [op, positive] = ["=", !positive];
    } else op = condition.op === "==" ? "=" : condition.op;
    if (left.kind === "const") {
      [left, right, op] = [right, left, MIRRORED_OP[op]];
    }
    if (left.kind !== "column") throw new Error("unreachable: one side is a column");
    if (right.kind === "const") {
      if (right.nullLiteral) {
        if (!left.field.nullable) return positive ? FALSE : TRUE;
        return {
          kind: "sql",
          sql: positive ? sql<SqlBool>`${left.ref} is null` : sql<SqlBool>`${left.ref} is not null`,
        };
      }
      const value = right.value;
      // Any comparison with a null value (not the literal) is false.
      if (value === null) return positive ? FALSE : TRUE;
      if (typeof value === "boolean") return boolTest(left, value, positive);
      const sqlOp = positive ? op : NEGATED_OP[op];
      const test: Fragment = {
        kind: "sql",
        sql: sql<SqlBool>`${left.ref} ${sql.raw(sqlOp)} ${bind(value)}`,
      };
      return positive ? test : combine("or", [test, ...nullChecks([left])]);
    }
    const sqlOp = positive ? op : NEGATED_OP[op];
    const test: Fragment = {
      kind: "sql",
      sql: sql<SqlBool>`${left.ref} ${sql.raw(sqlOp)} ${right.ref}`,
    };
    return positive ? test : combine("or", [test, ...nullChecks([left, right])]);
  }

  private exists(condition: Condition & { kind: "exists" }, positive: boolean): Fragment {
    this.aliases += 1;
    const alias = `_x${this.aliases}`;
    const tests: Fragment[] = [];
    for (const { field, value } of condition.conditions) {
      const column: SqlSide = { kind: "column", ref: sql.id(alias, field.name), field };
      const side = this.side(value, true);
      if (side.kind === "column") {
        tests.push({ kind: "sql", sql: sql<SqlBool>`${column.ref} = ${side.ref}` });
        continue;
      }
      if (side.nullLiteral) {
        tests.push(
          field.nullable ? { kind: "sql", sql: sql<SqlBool>`${column.ref} is null` } : FALSE,
        );
        continue;
      }
      const v = side.value;
      if (v === null) tests.push(FALSE);
      else if (typeof v === "boolean") tests.push(boolTest(column, v, true));
      else tests.push({ kind: "sql", sql: sql<SqlBool>`${column.ref} = ${bind(v)}` });
    }
    const where = combine("and", tests);
    if (where.kind === "const" && !where.value) return positive ? FALSE : TRUE;
    const from = sql`${sql.table(condition.entity)} as ${sql.id(alias)}`;
    const subquery =
      where.kind === "const"
        ? sql`select 1 from ${from}`
        : sql`select 1 from ${from} where ${where.sql}`;
    return {
      kind: "sql",
      sql: positive ? sql<SqlBool>`exists (${subquery})` : sql<SqlBool>`not exists (${subquery})`,
    };
  }
}

function compileRule(rule: CompiledRule, auth: PolicyAuth, options: ReadFilterOptions): Fragment {
  const scope: Scope = { auth, data: undefined, existing: undefined };
  return new FilterCompiler(scope, options.table ?? rule.entity).compile(rule.condition, true);
}

function toFilter(fragment: Fragment): ReadFilter {
  if (fragment.kind === "const") return fragment.value ? "all" : "none";
  return fragment.sql;
}

/**
 * Compiles one read rule (not the OR of an entity's policies) for one caller;
 * `explain` shows each rule's SQL with it.
 */
export function compileRuleFilter(
  rule: CompiledRule,
  auth: PolicyAuth,
  options: ReadFilterOptions = {},
): ReadFilter {
  return toFilter(compileRule(rule, auth, options));
}

/**
 * Pushes an entity's read policies down to SQL for one caller: the OR of every
 * policy's `allowRead`, as a kysely expression for
 * `db.selectFrom(entity).where(filter)` on SQLite and Postgres alike. Values
 * are bound parameters, `exists(...)` is a correlated subquery, and what auth
 * settles folds away: `auth.userId == data.ownerId` is `"ownerId" = $1`, or
 * `"none"` for an anonymous caller. An entity with no read rule gives
 * `"none"`. Storage must follow the store's layout (table = entity, column =
 * field, bool as 0/1 on SQLite, text `COLLATE "C"` on Postgres).
 *
 * @example
 * const filter = compileReadFilter(compiled, "Todo", auth);
 * if (filter === "none") return [];
 * let query = db.selectFrom("Todo").selectAll();
 * if (filter !== "all") query = query.where(filter);
 */
export function compileReadFilter(
  compiled: CompiledPolicies,
  entity: string,
  auth: PolicyAuth,
  options: ReadFilterOptions = {},
): ReadFilter {
  const parts = rulesFor(compiled, entity, "read").map((rule) => compileRule(rule, auth, options));
  return toFilter(combine("or", parts));
}

/**
 * Compiles any action's rules for one caller as one SQL condition over rows
 * that live in tables: `data.<field>` becomes `"<rows.data>"."<field>"` and
 * `existing.<field>` becomes `"<rows.existing>"."<field>"`, always
 * qualified, so a query can join the row to insert (kept in a table of its
 * own) with the stored row it replaces. The OR of the entity's rules for
 * `action`, with the same semantics as `compileReadFilter` and the
 * evaluator; `"none"` when no rule allows the action. The store decides
 * writes in memory; this form exists so tools (`@svc/policy-engine/access-tests`)
 * can hold the evaluator and SQL equal on every action.
 *
 * @example
 * const filter = compileAccessFilter(compiled, "Todo", "update", auth, { data: "d", existing: "e" });
 * // auth u1, `auth.userId == existing.ownerId && data.ownerId == existing.ownerId`:
 * // ("e"."ownerId" = ? and "d"."ownerId" = "e"."ownerId")
 */
export function compileAccessFilter(
  compiled: CompiledPolicies,
  entity: string,
  action: PolicyAction,
  auth: PolicyAuth,
  rows: RowTables,
): ReadFilter {
  const scope: Scope = { auth, data: undefined, existing: undefined };
  const parts = rulesFor(compiled, entity, action).map((rule) =>
    new FilterCompiler(scope, rows.data ?? rows.existing ?? rule.entity, rows).compile(
      rule.condition,
      true,
    ),
  );
  return toFilter(combine("or", parts));
}
