import { findEntity, ownerField } from "@svc/schema";
import { describeDecider } from "../access-tests/decide-access.js";
import { POLICY_ACTIONS } from "../compile-policies.js";
import type { CompiledPolicies, PolicyAuth, PolicyRow } from "../condition.js";
import type { PolicyAction } from "../errors.js";
import { formatPolicyExpression } from "../format-expression.js";
import type { PolicyTables } from "../table-lookup.js";
import { type Candidate, type SearchCoverage, searchCandidates } from "./candidates.js";
import {
  decideCandidate,
  mentionsOf,
  planSearch,
  type SearchSummary,
  summarizeSearch,
} from "./search-plan.js";

/** How access to one entity and action changed. */
export type AccessChange = "same" | "widened" | "narrowed" | "changed";

/** A caller and rows that one version of the policies admits and the other refuses. */
export interface AccessWitness {
  readonly auth: PolicyAuth;
  /** The stored row the action reads (read, update, delete). */
  readonly existing?: PolicyRow;
  /** The row to insert, or an update's new row. */
  readonly data?: PolicyRow;
  /** Other stored rows the rules' `exists(...)` lookups see. */
  readonly stored: PolicyTables;
  readonly before: { readonly allowed: boolean; readonly reason: string };
  readonly after: { readonly allowed: boolean; readonly reason: string };
}

/** The verdict for one entity and action. */
export interface ActionDiff {
  readonly entity: string;
  readonly action: PolicyAction;
  readonly change: AccessChange;
  /** True when the rules (and what they depend on) did not change: no search was needed. */
  readonly unchanged: boolean;
  /** Admitted by the new policies, refused by the old. */
  readonly widened?: AccessWitness;
  /** Admitted by the old policies, refused by the new. */
  readonly narrowed?: AccessWitness;
  /** What the search covered; absent when `unchanged`. */
  readonly search?: SearchSummary;
}

/** What `diffPolicies` reports. */
export interface PolicyDiff {
  readonly actions: readonly ActionDiff[];
  /** True when some entity and action widened. */
  readonly widened: boolean;
}

/** Everything that decides an entity's action besides the search: rules, read gate, owner, fields. */
function signature(compiled: CompiledPolicies, entityName: string, action: PolicyAction): string {
  const entity = findEntity(compiled.manifest, entityName);
  if (entity === undefined) return "absent";
  const rules = (which: PolicyAction) =>
    (compiled.rules.get(entityName)?.[which] ?? []).map((rule) =>
      formatPolicyExpression(rule.expr),
    );
  const looksUp = [...rules(action), ...rules("read")].some((text) => text.includes("exists("));
  return JSON.stringify({
    rules: rules(action),
    gate: action === "update" || action === "delete" ? rules("read") : [],
    owner: ownerField(entity)?.name ?? null,
    fields: entity.fields,
    // A lookup reads other entities: any change to them counts.
    others: looksUp ? compiled.manifest.entities : [],
  });
}

function witness(
  before: CompiledPolicies,
  after: CompiledPolicies,
  candidate: Candidate,
): AccessWitness {
  const old = decideCandidate(before, candidate);
  const next = decideCandidate(after, candidate);
  const { entity, action } = candidate;
  return {
    auth: candidate.auth,
    ...(candidate.existing !== undefined && { existing: candidate.existing }),
    ...(candidate.data !== undefined && { data: next.data ?? candidate.data }),
    stored: candidate.world,
    before: { allowed: old.allowed, reason: describeDecider(old.decider, entity, action) },
    after: { allowed: next.allowed, reason: describeDecider(next.decider, entity, action) },
  };
}

function diffAction(
  before: CompiledPolicies,
  after: CompiledPolicies,
  entity: string,
  action: PolicyAction,
  bound: number | undefined,
): ActionDiff {
  if (signature(before, entity, action) === signature(after, entity, action)) {
    return { entity, action, change: "same", unchanged: true };
  }
  const mentions = mentionsOf([before, after]);
  const space = planSearch({
    policies: [before, after],
    entity,
    action,
    mentions,
    ...(bound !== undefined && { bound }),
  });
  if (space === null) return { entity, action, change: "same", unchanged: true };
  const coverage = {
    value: { space: 0, tried: 0, candidates: 0, exhaustive: true } as SearchCoverage,
  };
  let widened: AccessWitness | undefined;
  let narrowed: AccessWitness | undefined;
  for (const candidate of searchCandidates(space, coverage)) {
    const old = decideCandidate(before, candidate).allowed;
    const next = decideCandidate(after, candidate).allowed;
    if (next && !old && widened === undefined) widened = witness(before, after, candidate);
    if (old && !next && narrowed === undefined) narrowed = witness(before, after, candidate);
    if (widened !== undefined && narrowed !== undefined) break;
  }
  const change: AccessChange =
    widened !== undefined && narrowed !== undefined
      ? "changed"
      : widened !== undefined
        ? "widened"
        : narrowed !== undefined
          ? "narrowed"
          : "same";
  return {
    entity,
    action,
    change,
    unchanged: false,
    ...(widened !== undefined && { widened }),
    ...(narrowed !== undefined && { narrowed }),
    search: summarizeSearch(space, mentions, coverage.value),
  };
}

/**
 * Compares two versions of a manifest's policies, entity by entity and
 * action by action, the way the store decides (admin token, entity gate,
 * owner field, read gate, rules): `widened` when the new policies admit a
 * caller and row the old refused, `narrowed` for the reverse, `changed`
 * for both, `same` when the bounded search finds neither (or nothing that
 * decides changed). Each change comes with a witness found by the search
 * over callers and rows built from the literals, fields and roles either
 * version mentions (see `describeSearch`). An entity only in the new
 * manifest widens wherever it admits someone; one only in the old narrows.
 *
 * @example
 * const diff = diffPolicies(compilePolicies(old), compilePolicies(next));
 * diff.widened; // true when some access widened
 * diff.actions.find((a) => a.change === "widened")?.widened?.auth; // who gained access
 */
export function diffPolicies(
  before: CompiledPolicies,
  after: CompiledPolicies,
  options: { readonly bound?: number } = {},
): PolicyDiff {
  const names = [
    ...after.manifest.entities.map((entity) => entity.name),
    ...before.manifest.entities
      .map((entity) => entity.name)
      .filter((name) => findEntity(after.manifest, name) === undefined),
  ];
  const actions = names.flatMap((entity) =>
    POLICY_ACTIONS.map((action) => diffAction(before, after, entity, action, options.bound)),
  );
  return {
    actions,
    widened: actions.some((item) => item.change === "widened" || item.change === "changed"),
  };
}
