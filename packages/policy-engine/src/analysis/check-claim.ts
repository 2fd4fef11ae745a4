import { type AccessDecision, describeDecider } from "../access-tests/decide-access.js";
import type { AccessTestDatabase } from "../access-tests/scratch-database.js";
import type { CompiledPolicies } from "../condition.js";
import { evaluateRule } from "../evaluate.js";
import { type Candidate, type SearchCoverage, searchCandidates } from "./candidates.js";
import { type FoundCandidate, ruleInput, showCandidate } from "./find-candidate.js";
import { parseClaim } from "./parse-claim.js";
import {
  decideCandidate,
  mentionsOf,
  planSearch,
  type SearchSummary,
  summarizeSearch,
} from "./search-plan.js";
import { checkCandidatesInSQL } from "./sql-candidates.js";

/** A candidate the rules admit and the claim refuses. */
export interface Counterexample {
  readonly candidate: FoundCandidate;
  /** Why the rules admit it. */
  readonly reason: string;
  /** The part of the claim (as written) that is false for it. */
  readonly claimFalse: string;
}

/** A candidate on which a database's SQL and the evaluator disagree. */
export interface SqlDisagreement {
  readonly database: string;
  readonly candidate: FoundCandidate;
  readonly evaluator: "allow" | "deny";
  readonly sql: "allow" | "deny";
  readonly reason: string;
}

/** What `checkClaim` reports. */
export interface ClaimReport {
  readonly entity: string;
  readonly action: Candidate["action"];
  readonly claim: string;
  /** True when no candidate searched breaks the claim. */
  readonly holds: boolean;
  /** How many candidates broke it; the first is shown. */
  readonly counterexamples: number;
  readonly counterexample?: Counterexample;
  readonly search: SearchSummary;
  /** Per database: candidates run through its SQL, and every disagreement with the evaluator (at most 10 shown). */
  readonly sql: readonly {
    readonly database: string;
    readonly checked: number;
    readonly disagreements: number;
    readonly shown: readonly SqlDisagreement[];
  }[];
}

/** Options of `checkClaim`. */
export interface CheckClaimOptions {
  /** Caller and row combinations searched at most. Default 20000. */
  readonly bound?: number;
  /** Databases each candidate also runs through (as SQL), so a compiler disagreement shows. */
  readonly databases?: readonly AccessTestDatabase[];
}

/**
 * Checks a claim (`"Todo.read: auth.userId == data.ownerId || auth.isAdmin"`)
 * against the policies: searches callers and rows built from the literals,
 * fields and roles the rules and the claim mention for one the policies
 * admit (as the store decides) and the claim does not, and runs every
 * candidate through each database's compiled SQL, reporting where the SQL
 * and the evaluator disagree. The report says what the search covered.
 * Throws `INVALID_CLAIM` for a claim that does not parse or check.
 *
 * @example
 * const report = await checkClaim(compiled, "Todo.read: auth.userId == data.ownerId");
 * report.holds; // false when someone else's todo is readable
 */
export async function checkClaim(
  compiled: CompiledPolicies,
  text: string,
  options: CheckClaimOptions = {},
): Promise<ClaimReport> {
  const claim = parseClaim(compiled, text);
  const mentions = mentionsOf([compiled], [claim.rule.condition]);
  const space = planSearch({
    policies: [compiled],
    entity: claim.entity,
    action: claim.action,
    mentions,
    extra: [claim.rule.condition],
    ...(options.bound !== undefined && { bound: options.bound }),
  });
  if (space === null) throw new Error(`unreachable: ${claim.entity} was checked`);
  const coverage = {
    value: { space: 0, tried: 0, candidates: 0, exhaustive: true } as SearchCoverage,
  };
  const candidates: Candidate[] = [];
  const decisions: AccessDecision[] = [];
  let counterexamples = 0;
  let counterexample: Counterexample | undefined;
  for (const candidate of searchCandidates(space, coverage)) {
    const decision = decideCandidate(compiled, candidate);
    candidates.push(candidate);
    decisions.push(decision);
    if (!decision.allowed) continue;
    const outcome = evaluateRule(claim.rule, ruleInput(compiled, candidate));
    if (outcome.value) continue;
    counterexamples += 1;
    if (counterexample === undefined) {
      const { start, end } = outcome.decidedBy.expr;
      counterexample = {
        candidate: showCandidate(compiled, candidate),
        reason: describeDecider(decision.decider, claim.entity, claim.action),
        claimFalse: claim.rule.source.slice(start, end),
      };
    }
  }
  const sql = [];
  for (const database of options.databases ?? []) {
    const check = await checkCandidatesInSQL(database, compiled, candidates, decisions);
    sql.push({
      database: check.database,
      checked: check.checked,
      disagreements: check.disagreements.length,
      shown: check.disagreements.slice(0, 10).map((position): SqlDisagreement => {
        const decision = decisions[position] as AccessDecision;
        return {
          database: check.database,
          candidate: showCandidate(compiled, candidates[position] as Candidate),
          evaluator: decision.allowed ? "allow" : "deny",
          sql: decision.allowed ? "deny" : "allow",
          reason: describeDecider(decision.decider, claim.entity, claim.action),
        };
      }),
    });
  }
  return {
    entity: claim.entity,
    action: claim.action,
    claim: claim.rule.source,
    holds: counterexample === undefined,
    counterexamples,
    ...(counterexample !== undefined && { counterexample }),
    search: summarizeSearch(space, mentions, coverage.value),
    sql,
  };
}
