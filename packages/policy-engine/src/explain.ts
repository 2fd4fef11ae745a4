import { Kysely } from "kysely";
import type { AccessRequest } from "./check-access.js";
import { rulesFor } from "./compile-policies.js";
import { compileReadFilter, compileRuleFilter, type ReadFilter } from "./compile-read-filter.js";
import type { CompiledPolicies, CompiledRule } from "./condition.js";
import { ruleKey } from "./errors.js";
import { type ExistsLookup, evaluateRule } from "./evaluate.js";
import { formatPolicyExpression } from "./format-expression.js";
import { type PolicyDialectName, policySqlDialect } from "./sql-dialects.js";

/** A query as a dialect would run it. */
export interface ExplainedSQL {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/** One rule of the entity and action, explained. */
export interface RuleExplanation {
  readonly policy: string;
  /** The rule as written. */
  readonly source: string;
  /** The parsed rule, printed canonically. */
  readonly formatted: string;
  /** Reads only: this rule alone as a `WHERE`, or `"all"` / `"none"` when auth settles it. */
  readonly sql?: ExplainedSQL | "all" | "none";
  /** When the rows were given: the rule's value and the sub-expression (as written) that settled it. */
  readonly outcome?: {
    readonly value: boolean;
    readonly decidedBy: string;
    readonly column: number;
  };
}

/** What `explain` reports. */
export interface Explanation {
  readonly entity: string;
  readonly action: AccessRequest["action"];
  readonly rules: readonly RuleExplanation[];
  /** Reads only: the whole filtered query, `select * from "<Entity>" where ...`, or `"all"` / `"none"`. */
  readonly sql?: ExplainedSQL | "all" | "none";
  /** When the rows the action reads were given: the decision, its policy and one sentence why. */
  readonly verdict?: {
    readonly allowed: boolean;
    readonly policy: string | null;
    readonly reason: string;
  };
}

/** What to explain. */
export interface ExplainRequest extends AccessRequest {
  /** Answers `exists(...)` for the verdict; needed only when a rule reaches one. */
  readonly lookup?: ExistsLookup;
  /** The dialect whose SQL to show. Default `"sqlite"`. */
  readonly dialect?: "sqlite" | "postgres";
}

/** Tables as `explain` sees them: any name, any columns. */
export type AnyTables = Record<string, Record<string, unknown>>;

/** A Kysely that only compiles (no driver, no I/O). Internal; tests use it too. */
export function coldKysely(dialect: PolicyDialectName): Kysely<AnyTables> {
  return new Kysely<AnyTables>({ dialect: policySqlDialect(dialect).compileOnly() });
}

function render(
  db: Kysely<AnyTables>,
  entity: string,
  filter: ReadFilter,
): ExplainedSQL | "all" | "none" {
  if (filter === "all" || filter === "none") return filter;
  const query = db.selectFrom(entity).selectAll().where(filter).compile();
  return { sql: query.sql, parameters: query.parameters };
}

function hasRows(request: ExplainRequest): boolean {
  switch (request.action) {
    case "read":
    case "insert":
      return request.data !== undefined;
    case "update":
      return request.data !== undefined && request.existing !== undefined;
    case "delete":
      return request.existing !== undefined;
  }
}

function explainRule(
  rule: CompiledRule,
  request: ExplainRequest,
  db: Kysely<AnyTables>,
): RuleExplanation {
  const base = {
    policy: rule.policy,
    source: rule.source,
    formatted: formatPolicyExpression(rule.expr),
  };
  const sql =
    request.action === "read"
      ? { sql: render(db, rule.entity, compileRuleFilter(rule, request.auth)) }
      : {};
  if (!hasRows(request)) return { ...base, ...sql };
  const outcome = evaluateRule(rule, request);
  const { start, end } = outcome.decidedBy.expr;
  return {
    ...base,
    ...sql,
    outcome: { value: outcome.value, decidedBy: rule.source.slice(start, end), column: start + 1 },
  };
}

function reason(request: ExplainRequest, rules: readonly RuleExplanation[]): string {
  const key = `${request.entity}.${ruleKey(request.action)}`;
  if (rules.length === 0) return `denied: no policy has a rule for ${key}`;
  const allowing = rules.find((rule) => rule.outcome?.value === true);
  if (allowing?.outcome !== undefined) {
    return `allowed by policy ${JSON.stringify(allowing.policy)}: ${allowing.outcome.decidedBy} holds`;
  }
  const why = rules.map(
    (rule) => `${JSON.stringify(rule.policy)}: ${rule.outcome?.decidedBy ?? rule.source} is false`,
  );
  return `denied: no rule for ${key} holds (${why.join("; ")})`;
}

/**
 * Explains how an action on an entity is decided for a caller: each rule
 * parsed and printed, for reads the SQL the policies compile to (through
 * kysely's compiler for `dialect`), and, when the rows the action reads are
 * given, the verdict with the sub-expression that settled each rule. Throws
 * `EXISTS_UNRESOLVED` if the verdict needs an `exists(...)` and no `lookup`
 * was given.
 *
 * @example
 * const e = explain(compiled, { entity: "Todo", action: "read", auth, data: row, dialect: "postgres" });
 * e.sql; // { sql: 'select * from "Todo" where "ownerId" = $1', parameters: ["u1"] }
 * e.verdict?.reason; // 'allowed by policy "own todos": auth.userId == data.ownerId holds'
 */
export function explain(compiled: CompiledPolicies, request: ExplainRequest): Explanation {
  const db = coldKysely(request.dialect ?? "sqlite");
  const rules = rulesFor(compiled, request.entity, request.action).map((rule) =>
    explainRule(rule, request, db),
  );
  const base = { entity: request.entity, action: request.action, rules };
  const sql =
    request.action === "read"
      ? {
          sql: render(
            db,
            request.entity,
            compileReadFilter(compiled, request.entity, request.auth),
          ),
        }
      : {};
  if (!hasRows(request)) return { ...base, ...sql };
  const allowing = rules.find((rule) => rule.outcome?.value === true);
  return {
    ...base,
    ...sql,
    verdict: {
      allowed: allowing !== undefined,
      policy: allowing?.policy ?? null,
      reason: reason(request, rules),
    },
  };
}
