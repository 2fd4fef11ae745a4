import { describeDecider } from "../access-tests/decide-access.js";
import { POLICY_ACTIONS } from "../compile-policies.js";
import type { CompiledPolicies, PolicyAuth } from "../condition.js";
import type { PolicyAction } from "../errors.js";
import { createPolicyAuth } from "../testing.js";
import { type SearchCoverage, searchCandidates } from "./candidates.js";
import { type FoundCandidate, showCandidate } from "./find-candidate.js";
import type { Mentions } from "./mentions.js";
import { decideCandidate, mentionsOf, planSearch } from "./search-plan.js";

/** A kind of caller a matrix row stands for. */
export interface MatrixCaller {
  readonly label: string;
  readonly auth: PolicyAuth;
}

/** One cell: whether the caller may do the action to every row searched, some, or none. */
export interface MatrixCell {
  readonly action: PolicyAction;
  readonly verdict: "allow" | "some" | "deny";
  /** Candidates allowed, of those searched. */
  readonly allowed: number;
  readonly searched: number;
  /** What decided: the first allowing rule, or (deny) why the first candidate was refused. */
  readonly reason: string;
  /** For `some`: a row allowed. */
  readonly example?: FoundCandidate;
}

/** One entity's access matrix: callers × actions. */
export interface AccessMatrix {
  readonly entity: string;
  readonly rows: readonly {
    readonly caller: MatrixCaller;
    readonly cells: readonly MatrixCell[];
  }[];
}

/**
 * The kinds of caller worth a row: anonymous, a guest, a signed-in user
 * (an API key is the same caller: its owner, no roles), a member of a
 * tenant with each role the rules test (or with none, when a rule reads
 * `auth.tenantId` but tests no role), a user with each entitlement tested,
 * and the admin token.
 */
export function matrixCallers(mentions: Mentions): MatrixCaller[] {
  const callers: MatrixCaller[] = [
    { label: "anonymous", auth: createPolicyAuth() },
    { label: "guest", auth: createPolicyAuth({ userId: "u1", isGuest: true }) },
    { label: "user u1 (or their API key)", auth: createPolicyAuth({ userId: "u1" }) },
  ];
  const tenant = mentions.tenant || mentions.tenantLiterals.size > 0;
  for (const role of [...mentions.roles].sort()) {
    callers.push({
      label: `u1, ${tenant ? "member of t1 " : ""}with role ${role}`,
      auth: createPolicyAuth({ userId: "u1", tenantId: tenant ? "t1" : null, roles: [role] }),
    });
  }
  if (tenant && mentions.roles.size === 0) {
    callers.push({
      label: "u1, member of t1",
      auth: createPolicyAuth({ userId: "u1", tenantId: "t1" }),
    });
  }
  for (const entitlement of [...mentions.entitlements].sort()) {
    callers.push({
      label: `u1 with entitlement ${entitlement}`,
      auth: createPolicyAuth({ userId: "u1", entitlements: [entitlement] }),
    });
  }
  callers.push({ label: "admin token", auth: createPolicyAuth({ isAdmin: true }) });
  return callers;
}

function cell(
  compiled: CompiledPolicies,
  mentions: Mentions,
  entity: string,
  action: PolicyAction,
  auth: PolicyAuth,
  bound: number,
): MatrixCell {
  const space = planSearch({
    policies: [compiled],
    entity,
    action,
    mentions,
    callers: [auth],
    bound,
  });
  if (space === null)
    return { action, verdict: "deny", allowed: 0, searched: 0, reason: "no such entity" };
  const coverage = {
    value: { space: 0, tried: 0, candidates: 0, exhaustive: true } as SearchCoverage,
  };
  let allowed = 0;
  let searched = 0;
  let firstAllowed: { reason: string; example: FoundCandidate } | undefined;
  let firstDenied: string | undefined;
  for (const candidate of searchCandidates(space, coverage)) {
    searched += 1;
    const decision = decideCandidate(compiled, candidate);
    if (decision.allowed) {
      allowed += 1;
      firstAllowed ??= {
        reason: describeDecider(decision.decider, entity, action),
        example: showCandidate(compiled, candidate),
      };
    } else firstDenied ??= describeDecider(decision.decider, entity, action);
  }
  if (firstAllowed === undefined) {
    return { action, verdict: "deny", allowed, searched, reason: firstDenied ?? "denied" };
  }
  const verdict = allowed === searched ? "allow" : "some";
  return {
    action,
    verdict,
    allowed,
    searched,
    reason: firstAllowed.reason,
    ...(verdict === "some" && { example: firstAllowed.example }),
  };
}

/**
 * The access matrix of one entity: for each kind of caller and each action,
 * whether the policies (as the store applies them) allow it on every row
 * the bounded search tries, on some, or on none, with the rule that
 * decided. Pure.
 *
 * @example
 * accessMatrix(compiled, "Todo").rows[2]?.cells[0]?.verdict; // "some": a user reads their own todos
 */
export function accessMatrix(
  compiled: CompiledPolicies,
  entity: string,
  options: { readonly bound?: number; readonly callers?: readonly MatrixCaller[] } = {},
): AccessMatrix {
  const mentions = mentionsOf([compiled]);
  const callers = options.callers ?? matrixCallers(mentions);
  const bound = options.bound ?? 500;
  return {
    entity,
    rows: callers.map((caller) => ({
      caller,
      cells: POLICY_ACTIONS.map((action) =>
        cell(compiled, mentions, entity, action, caller.auth, bound),
      ),
    })),
  };
}
