export type {
  CompareExpr,
  CompareOp,
  ExistsCondition,
  ExistsExpr,
  Expr,
  HasEntitlementExpr,
  HasRoleExpr,
  LiteralExpr,
  LogicalExpr,
  NotExpr,
  RefExpr,
  Span,
} from "./ast.js";
export {
  type AccessRequest,
  type AccessVerdict,
  checkAccess,
  evaluateAccess,
} from "./check-access.js";
export { checkJoin, type JoinRequest } from "./check-join.js";
export { compilePolicies, POLICY_ACTIONS, rulesFor } from "./compile-policies.js";
export {
  compileAccessFilter,
  compileReadFilter,
  compileRuleFilter,
  type ReadFilter,
  type ReadFilterOptions,
  type RowTables,
} from "./compile-read-filter.js";
export type {
  CheckedExistsCondition,
  CompareKind,
  CompiledJoinRule,
  CompiledPolicies,
  CompiledRule,
  Condition,
  FieldInfo,
  Operand,
  PolicyAuth,
  PolicyRow,
} from "./condition.js";
export {
  formatPolicyIssue,
  type PolicyAction,
  PolicyError,
  type PolicyErrorCode,
  type PolicyIssue,
  policyErrorCodes,
  renderPolicyIssue,
} from "./errors.js";
export {
  type EvaluateInput,
  type ExistsLookup,
  type ExistsLookupCondition,
  type ExistsResolver,
  evaluate,
  evaluateRule,
  type RuleOutcome,
} from "./evaluate.js";
export {
  type ExplainedSQL,
  type ExplainRequest,
  type Explanation,
  explain,
  type RuleExplanation,
} from "./explain.js";
export { formatPolicyExpression } from "./format-expression.js";
export { POLICY_LIMITS, parsePolicyExpression } from "./parse-expression.js";
export {
  type PolicyDialectName,
  type PolicySqlDialect,
  policySqlDialect,
} from "./sql-dialects.js";
export type { PolicyValue } from "./values.js";
