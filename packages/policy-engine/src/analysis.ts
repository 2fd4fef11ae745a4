export {
  type AccessMatrix,
  accessMatrix,
  type MatrixCaller,
  type MatrixCell,
  matrixCallers,
} from "./analysis/access-matrix.js";
export {
  type Candidate,
  DEFAULT_SEARCH_BOUND,
  type SearchCoverage,
  type SearchSpace,
  searchCandidates,
} from "./analysis/candidates.js";
export {
  type CheckClaimOptions,
  type ClaimReport,
  type Counterexample,
  checkClaim,
  type SqlDisagreement,
} from "./analysis/check-claim.js";
export {
  type AccessChange,
  type AccessWitness,
  type ActionDiff,
  diffPolicies,
  type PolicyDiff,
} from "./analysis/diff-policies.js";
export type { FoundCandidate } from "./analysis/find-candidate.js";
export {
  formatClaimReport,
  formatLintFindings,
  formatPolicyDiff,
} from "./analysis/format-analysis.js";
export { adviseIndexes, type IndexAdvice } from "./analysis/index-advice.js";
export {
  type LintCode,
  type LintFinding,
  type LintLevel,
  type LintOptions,
  lintCodes,
  lintPolicies,
} from "./analysis/lint-policies.js";
export { type IndexMeasurement, measureIndex } from "./analysis/measure-index.js";
export { type Claim, parseClaim } from "./analysis/parse-claim.js";
export { describeSearch, type SearchSummary } from "./analysis/search-plan.js";
