import { type EntityDef, ownerField } from "@svc/schema";
import { POLICY_ACTIONS } from "../compile-policies.js";
import type { CompiledPolicies, CompiledRule, Condition } from "../condition.js";
import { type PolicyAction, ruleKey } from "../errors.js";
import { evaluateRule } from "../evaluate.js";
import { createPolicyAuth } from "../testing.js";
import type { SearchSpace } from "./candidates.js";
import { leavesOf } from "./condition-leaves.js";
import { type FoundCandidate, findCandidate, ruleInput, showCandidate } from "./find-candidate.js";
import { adviseIndexes } from "./index-advice.js";
import type { Mentions } from "./mentions.js";
import { decideCandidate, mentionsOf, planSearch } from "./search-plan.js";

/** How much a finding matters: `error` is an access bug, `warning` a likely mistake or a slow query, `info` worth knowing. */
export type LintLevel = "error" | "warning" | "info";

/** Every finding's code, with its level. */
export const lintCodes = {
  ALWAYS_TRUE: "error",
  ALWAYS_FALSE: "warning",
  OWNER_NOT_PINNED: "error",
  ROW_CAN_MOVE: "error",
  UNINDEXED_FILTER: "warning",
  UNINDEXED_LOOKUP: "warning",
  PUBLIC_READ: "info",
  NO_POLICY: "info",
} as const satisfies Record<string, LintLevel>;

export type LintCode = keyof typeof lintCodes;

/** One lint finding. */
export interface LintFinding {
  readonly code: LintCode;
  readonly level: LintLevel;
  readonly entity: string;
  readonly action?: PolicyAction;
  /** The policy and the rule as written, when one rule is at fault. */
  readonly policy?: string;
  readonly rule?: string;
  /** The field concerned (owner, tenant or reach field). */
  readonly field?: string;
  /** One or two sentences: what is wrong and what to do. */
  readonly message: string;
  /** A caller and rows showing it (searched findings). */
  readonly witness?: FoundCandidate;
  /** Index findings: the manifest entry to add and the same index as SQL. */
  readonly index?: {
    readonly manifest: {
      readonly name: string;
      readonly fields: readonly string[];
      readonly unique: false;
    };
    readonly sql: string;
  };
}

/** Options of `lintPolicies`. */
export interface LintOptions {
  /** Candidates searched per rule or question. Default 2000: lint runs at every dev boot. */
  readonly bound?: number;
}

const LINT_BOUND = 2000;

function where(rule: CompiledRule): string {
  return `policy ${JSON.stringify(rule.policy)} (${rule.entity}.${ruleKey(rule.action)})`;
}

interface Context {
  readonly compiled: CompiledPolicies;
  readonly mentions: Mentions;
  readonly bound: number;
}

function plan(ctx: Context, entity: string, action: PolicyAction): SearchSpace | null {
  return planSearch({
    policies: [ctx.compiled],
    entity,
    action,
    mentions: ctx.mentions,
    bound: ctx.bound,
  });
}

/** Rules that hold for every caller and row searched, or for none. */
function constantRules(ctx: Context, rule: CompiledRule): LintFinding[] {
  const space = plan(ctx, rule.entity, rule.action);
  if (space === null) return [];
  const value = (candidate: Parameters<typeof ruleInput>[1]) =>
    evaluateRule(rule, ruleInput(ctx.compiled, candidate)).value;
  const falsified = findCandidate(space, (candidate) => !value(candidate));
  if (falsified.found === undefined) {
    const reads = rule.action === "read";
    return [
      {
        code: "ALWAYS_TRUE",
        level: reads ? "warning" : "error",
        entity: rule.entity,
        action: rule.action,
        policy: rule.policy,
        rule: rule.source,
        message: `${where(rule)} holds for every caller searched, anonymous included: anyone can ${rule.action} any ${rule.entity}${reads ? " (if that is the intent, say so with a test)" : ""}.`,
      },
    ];
  }
  const satisfied = findCandidate(space, value);
  if (satisfied.found !== undefined) return [];
  return [
    {
      code: "ALWAYS_FALSE",
      level: "warning",
      entity: rule.entity,
      action: rule.action,
      policy: rule.policy,
      rule: rule.source,
      message: `${where(rule)} holds for no caller and row searched: it never allows anything; fix it or remove it.`,
    },
  ];
}

/** `data.<f>`/`existing.<f>` compared with `auth.userId` or `auth.tenantId` (not inside an exists). */
function authFields(condition: Condition, out: Map<string, "userId" | "tenantId">): void {
  for (const leaf of leavesOf(condition)) {
    if (leaf.kind !== "compare") continue;
    for (const [a, b] of [
      [leaf.left, leaf.right],
      [leaf.right, leaf.left],
    ] as const) {
      if (
        a.kind === "field" &&
        a.scope !== "room" &&
        b.kind === "auth" &&
        (b.name === "userId" || b.name === "tenantId")
      ) {
        out.set(a.field.name, b.name);
      }
    }
  }
}

/** `data.<f>` used as a value in an `exists(...)` lookup: the row reaches its readers through `f`. */
function lookupFields(condition: Condition, out: Set<string>): void {
  for (const leaf of leavesOf(condition)) {
    if (leaf.kind !== "exists") continue;
    for (const { value } of leaf.conditions) {
      if (value.kind === "field" && value.scope === "data") out.add(value.field.name);
    }
  }
}

/** Insert rules that let a caller create a row whose owner or tenant field is someone else's. */
function unpinnedInserts(
  ctx: Context,
  entity: EntityDef,
  rules: Record<PolicyAction, readonly CompiledRule[]>,
): LintFinding[] {
  if (rules.insert.length === 0) return [];
  const owner = ownerField(entity)?.name;
  const fields = new Map<string, "userId" | "tenantId">();
  for (const action of ["read", "update", "delete"] as const) {
    for (const rule of rules[action]) authFields(rule.condition, fields);
  }
  const findings: LintFinding[] = [];
  for (const [field, against] of fields) {
    if (field === owner || field === "id") continue;
    const space = plan(ctx, entity.name, "insert");
    if (space === null) continue;
    const result = findCandidate(space, (candidate) => {
      const data = ruleInput(ctx.compiled, candidate).data;
      const mine = candidate.auth[against];
      return (
        mine !== null && data?.[field] !== mine && decideCandidate(ctx.compiled, candidate).allowed
      );
    });
    if (result.found === undefined) continue;
    const who = against === "userId" ? "user" : "tenant";
    findings.push({
      code: "OWNER_NOT_PINNED",
      level: "error",
      entity: entity.name,
      action: "insert",
      field,
      message: `${entity.name}.allowInsert lets a caller create a row whose ${field} is another ${who}'s (the other rules treat ${field} as the ${who} it belongs to): add \`data.${field} == auth.${against}\` to the insert rule${against === "userId" ? ", or mark the field `owner: true` so the store stamps it" : ""}.`,
      witness: showCandidate(ctx.compiled, result.found),
    });
  }
  return findings;
}

/** Update rules that let a row change the field that decides who reaches it. */
function movableRows(
  ctx: Context,
  entity: EntityDef,
  rules: Record<PolicyAction, readonly CompiledRule[]>,
): LintFinding[] {
  if (rules.update.length === 0) return [];
  const owner = ownerField(entity)?.name;
  const reach = new Map<string, string>();
  for (const rule of rules.read) {
    const direct = new Map<string, "userId" | "tenantId">();
    authFields(rule.condition, direct);
    for (const [field, against] of direct) reach.set(field, `auth.${against}`);
    const looked = new Set<string>();
    lookupFields(rule.condition, looked);
    for (const field of looked) if (!reach.has(field)) reach.set(field, "an exists(...) lookup");
  }
  const findings: LintFinding[] = [];
  for (const [field, through] of reach) {
    if (field === owner || field === "id") continue;
    const space = plan(ctx, entity.name, "update");
    if (space === null) continue;
    const result = findCandidate(
      space,
      (candidate) =>
        candidate.data?.[field] !== candidate.existing?.[field] &&
        decideCandidate(ctx.compiled, candidate).allowed,
    );
    if (result.found === undefined) continue;
    findings.push({
      code: "ROW_CAN_MOVE",
      level: "error",
      entity: entity.name,
      action: "update",
      field,
      message: `${entity.name}.allowUpdate lets an update change ${field}, which decides who reads the row (through ${through}): the row can move out of its owner's or tenant's reach. Add \`data.${field} == existing.${field}\` to the update rule.`,
      witness: showCandidate(ctx.compiled, result.found),
    });
  }
  return findings;
}

function publicRead(ctx: Context, entity: EntityDef): LintFinding[] {
  const space = planSearch({
    policies: [ctx.compiled],
    entity: entity.name,
    action: "read",
    mentions: ctx.mentions,
    callers: [createPolicyAuth()],
    bound: ctx.bound,
  });
  if (space === null) return [];
  const result = findCandidate(
    space,
    (candidate) => decideCandidate(ctx.compiled, candidate).allowed,
  );
  if (result.found === undefined) return [];
  return [
    {
      code: "PUBLIC_READ",
      level: "info",
      entity: entity.name,
      action: "read",
      message: `${entity.name} is readable by everyone, anonymous callers included.`,
      witness: showCandidate(ctx.compiled, result.found),
    },
  ];
}

/**
 * Looks for mistakes in a manifest's policies: rules that hold always or
 * never (`ALWAYS_TRUE`, `ALWAYS_FALSE`), insert rules that let a caller
 * create a row whose owner or tenant field is someone else's
 * (`OWNER_NOT_PINNED`), update rules that let a row change the field that
 * decides who reads it (`ROW_CAN_MOVE`, `data.x` unchecked against
 * `existing.x`), read filters and `exists(...)` lookups with no index
 * (`UNINDEXED_FILTER`, `UNINDEXED_LOOKUP`, with the index to add),
 * entities anonymous callers can read (`PUBLIC_READ`) and entities with no
 * policy (`NO_POLICY`: only the admin token reaches them). Searched
 * findings come from the same bounded search as `diffPolicies` and carry a
 * witness. Pure and bounded: the server runs it at every dev boot.
 *
 * @example
 * for (const finding of lintPolicies(compiled)) console.warn(finding.code, finding.message);
 */
export function lintPolicies(compiled: CompiledPolicies, options: LintOptions = {}): LintFinding[] {
  const ctx: Context = {
    compiled,
    mentions: mentionsOf([compiled]),
    bound: options.bound ?? LINT_BOUND,
  };
  const findings: LintFinding[] = [];
  for (const entity of compiled.manifest.entities) {
    const rules = compiled.rules.get(entity.name);
    if (rules === undefined) continue;
    if (POLICY_ACTIONS.every((action) => rules[action].length === 0)) {
      findings.push({
        code: "NO_POLICY",
        level: "info",
        entity: entity.name,
        message: `${entity.name} has no policy: it is denied to everyone but the admin token (the studio, /api/batch, and server code using the store's system reader or writer).`,
      });
      continue;
    }
    for (const action of POLICY_ACTIONS) {
      for (const rule of rules[action]) findings.push(...constantRules(ctx, rule));
    }
    findings.push(...unpinnedInserts(ctx, entity, rules));
    findings.push(...movableRows(ctx, entity, rules));
    findings.push(...publicRead(ctx, entity));
  }
  for (const advice of adviseIndexes(compiled)) {
    const lookup = advice.code === "UNINDEXED_LOOKUP";
    findings.push({
      code: advice.code,
      level: "warning",
      entity: advice.entity,
      action: advice.rule.action,
      policy: advice.rule.policy,
      rule: advice.rule.source,
      field: advice.columns.join(", "),
      message: lookup
        ? `${where(advice.rule)} looks up ${advice.entity} by ${advice.columns.join(", ")} with no index: every check scans the table. Add the index.`
        : `${where(advice.rule)} filters ${advice.entity} on ${advice.columns.join(", ")} with no index: every read scans the table. Add the index.`,
      index: { manifest: advice.manifestIndex, sql: advice.createIndex },
    });
  }
  return findings;
}
