import { prepareData } from "../access-tests/decide-access.js";
import type { CompiledPolicies, PolicyAuth, PolicyRow } from "../condition.js";
import type { ExistsLookup } from "../evaluate.js";
import type { PolicyTables } from "../table-lookup.js";
import { tableLookup } from "../table-lookup.js";
import {
  type Candidate,
  candidateTables,
  type SearchCoverage,
  type SearchSpace,
  searchCandidates,
} from "./candidates.js";

/** A candidate as a report shows it: who, which rows, which other stored rows. */
export interface FoundCandidate {
  readonly auth: PolicyAuth;
  readonly existing?: PolicyRow;
  /** The row the rules saw as `data` (an insert's after owner stamping, an update's new row). */
  readonly data?: PolicyRow;
  readonly stored: PolicyTables;
}

/** The result of a search for one candidate: it (when found) and what was covered. */
export interface FindResult {
  readonly found?: Candidate;
  readonly coverage: SearchCoverage;
}

/** Searches the space for the first candidate meeting `predicate`. */
export function findCandidate(
  space: SearchSpace,
  predicate: (candidate: Candidate) => boolean,
): FindResult {
  const coverage = {
    value: { space: 0, tried: 0, candidates: 0, exhaustive: true } as SearchCoverage,
  };
  for (const candidate of searchCandidates(space, coverage)) {
    if (predicate(candidate)) return { found: candidate, coverage: coverage.value };
  }
  return { coverage: coverage.value };
}

/** What a rule of the candidate's action reads, as the store hands it over (owner stamped, update merged). */
export function ruleInput(
  compiled: CompiledPolicies,
  candidate: Candidate,
): { auth: PolicyAuth; data?: PolicyRow; existing?: PolicyRow; lookup: ExistsLookup } {
  const { data } = prepareData(compiled, candidate);
  const existing =
    candidate.action === "update" || candidate.action === "delete" ? candidate.existing : undefined;
  return {
    auth: candidate.auth,
    lookup: tableLookup(candidateTables(candidate)),
    ...(data !== undefined && { data }),
    ...(existing !== undefined && { existing }),
  };
}

/** The candidate for a report, with `data` as the rules saw it. */
export function showCandidate(compiled: CompiledPolicies, candidate: Candidate): FoundCandidate {
  const input = ruleInput(compiled, candidate);
  return {
    auth: candidate.auth,
    ...(candidate.existing !== undefined && { existing: candidate.existing }),
    ...(candidate.action !== "read" && input.data !== undefined && { data: input.data }),
    stored: candidate.world,
  };
}
