import { type EntityDef, findEntity } from "@svc/schema";
import { type AccessDecision, decideStoreAccess } from "../access-tests/decide-access.js";
import type { CompiledPolicies, Condition, PolicyAuth } from "../condition.js";
import type { PolicyAction } from "../errors.js";
import { tableLookup } from "../table-lookup.js";
import type { PolicyValue } from "../values.js";
import {
  type Candidate,
  candidateTables,
  DEFAULT_SEARCH_BOUND,
  type SearchCoverage,
  type SearchSpace,
} from "./candidates.js";
import { fieldPools, searchCallers } from "./domain.js";
import { collectMentions, type Mentions } from "./mentions.js";

/** What a bounded search covered, for reports: the domain and the bound. */
export interface SearchSummary {
  readonly callers: number;
  /** What the callers vary over. */
  readonly callerAxes: {
    readonly userIds: readonly (string | null)[];
    readonly tenantIds: readonly (string | null)[];
    readonly roles: readonly string[];
    readonly entitlements: readonly string[];
    readonly guest: boolean;
  };
  /** Field to the values tried; fields left out keep a default. */
  readonly fields: Readonly<Record<string, readonly PolicyValue[]>>;
  readonly bound: number;
  readonly coverage: SearchCoverage;
}

/** The vocabulary of the given policies plus extra conditions (a claim). */
export function mentionsOf(
  policies: readonly CompiledPolicies[],
  extra: readonly Condition[] = [],
): Mentions {
  return collectMentions(policies, extra);
}

/**
 * The search space of one entity and action over one or more versions of
 * the policies: callers and field pools from what any of them mentions,
 * and the rules (and, for an update or delete, the read rules in front of
 * it) whose `exists(...)` lookups shape the stored rows.
 */
export function planSearch(input: {
  readonly policies: readonly CompiledPolicies[];
  readonly entity: string;
  readonly action: PolicyAction;
  readonly mentions: Mentions;
  readonly callers?: readonly PolicyAuth[];
  readonly extra?: readonly Condition[];
  readonly bound?: number;
}): SearchSpace | null {
  const definitions = input.policies
    .map((compiled) => findEntity(compiled.manifest, input.entity))
    .filter((entity): entity is EntityDef => entity !== undefined);
  const last = definitions[definitions.length - 1];
  const owner = input.policies.find(
    (compiled) => findEntity(compiled.manifest, input.entity) === last,
  );
  if (last === undefined || owner === undefined) return null;
  // Fields any version declares, so a field added or removed is still varied.
  const fields = new Map(
    definitions.flatMap((entity) => entity.fields.map((field) => [field.name, field] as const)),
  );
  const entity: EntityDef = { ...last, fields: [...fields.values()] };
  const rules = (action: PolicyAction) =>
    input.policies.flatMap((compiled) =>
      (compiled.rules.get(input.entity)?.[action] ?? []).map((rule) => rule.condition),
    );
  const gate = input.action === "update" || input.action === "delete";
  return {
    manifest: owner.manifest,
    entity,
    action: input.action,
    callers: input.callers ?? searchCallers(input.mentions),
    pools: fieldPools(entity, input.mentions),
    conditions: [...rules(input.action), ...(input.extra ?? [])],
    ...(gate && { gateConditions: rules("read") }),
    bound: input.bound ?? DEFAULT_SEARCH_BOUND,
  };
}

/** Decides a candidate under one version of the policies, as the store would. */
export function decideCandidate(compiled: CompiledPolicies, candidate: Candidate): AccessDecision {
  if (!compiled.rules.has(candidate.entity))
    return { allowed: false, decider: { kind: "no-rule" } };
  return decideStoreAccess(compiled, {
    entity: candidate.entity,
    action: candidate.action,
    auth: candidate.auth,
    lookup: tableLookup(candidateTables(candidate)),
    ...(candidate.data !== undefined && { data: candidate.data }),
    ...(candidate.existing !== undefined && { existing: candidate.existing }),
  });
}

/** The domain and bound of a finished search, for a report. */
export function summarizeSearch(
  space: SearchSpace,
  mentions: Mentions,
  coverage: SearchCoverage,
): SearchSummary {
  const users = new Set<string | null>();
  const tenants = new Set<string | null>();
  for (const caller of space.callers) {
    users.add(caller.userId);
    tenants.add(caller.tenantId);
  }
  return {
    callers: space.callers.length,
    callerAxes: {
      userIds: [...users],
      tenantIds: [...tenants],
      roles: [...mentions.roles].sort(),
      entitlements: [...mentions.entitlements].sort(),
      guest: mentions.isGuest,
    },
    fields: Object.fromEntries(space.pools),
    bound: space.bound ?? DEFAULT_SEARCH_BOUND,
    coverage,
  };
}

function list(values: readonly unknown[]): string {
  return values.map((value) => (value === null ? "null" : JSON.stringify(value))).join(", ");
}

/**
 * One paragraph saying what a search covered: `searched 7 callers (userId
 * null, "u1"; roles ⊆ {owner}) × 6 Todo rows (ownerId ∈ {"u1", "u2",
 * "other"} × done ∈ {true, false}; other fields at a default), stored rows
 * for each exists(...) present or absent: 42 of 42 caller/row
 * combinations (exhaustive), 84 candidates; bound 20000`.
 */
export function describeSearch(summary: SearchSummary, entity: string): string {
  const axes = summary.callerAxes;
  const callerParts = [`userId ${list(axes.userIds)}`];
  if (axes.tenantIds.length > 1) callerParts.push(`tenantId ${list(axes.tenantIds)}`);
  if (axes.roles.length > 0) callerParts.push(`roles ⊆ {${axes.roles.join(", ")}}`);
  if (axes.entitlements.length > 0)
    callerParts.push(`entitlements ⊆ {${axes.entitlements.join(", ")}}`);
  if (axes.guest) callerParts.push("guest or not");
  const fields = Object.entries(summary.fields);
  const rows = fields.reduce((product, [, values]) => product * Math.max(values.length, 1), 1);
  const fieldText =
    fields.length === 0
      ? "every field at a default"
      : `${fields.map(([name, values]) => `${name} ∈ {${list(values)}}`).join(" × ")}; other fields at a default`;
  const { coverage } = summary;
  const how = coverage.exhaustive ? "exhaustive" : `a seeded sample of ${coverage.tried}`;
  return `searched ${summary.callers} callers (${callerParts.join("; ")}; the admin token is left out: it bypasses policies) × ${rows} ${entity} rows (${fieldText}), with the stored rows each exists(...) looks for present or absent: ${coverage.tried} of ${coverage.space} caller/row combinations (${how}), ${coverage.candidates} candidates; bound ${summary.bound}`;
}
