import { type PolicyError, policyErrorCodes, renderPolicyIssue } from "@svc/policy-engine";

/**
 * A policy error as a person reads it in a terminal: the code's sentence,
 * then each problem on its own line with the rule and a caret under the
 * place it points at (`renderPolicyIssue`). Errors without located issues
 * keep their message.
 */
export function policyErrorText(error: PolicyError): string {
  if (!error.issues.some((issue) => issue.source !== undefined)) return error.message;
  const problems = error.issues.map((issue) => renderPolicyIssue(issue, "      "));
  return [policyErrorCodes[error.code].message, ...problems.map((text) => `  ${text}`)].join("\n");
}
