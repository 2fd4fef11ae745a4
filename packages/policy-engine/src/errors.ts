import { type DefinedErrorOptions, defineErrors, type ErrorTable } from "@svc/schema";

/**
 * Every failure @svc/policy-engine reports, keyed by a stable code. None is a
 * wire error: a policy problem is a configuration mistake that stops the boot,
 * and a denial comes back as data (`{ allowed: false }`), never as an error.
 */
export const policyErrorCodes = {
  POLICY_PARSE_ERROR: { status: undefined, message: "A policy expression has a syntax error." },
  POLICY_TYPE_ERROR: {
    status: undefined,
    message: "A policy expression does not fit the manifest's schema.",
  },
  POLICY_LIMIT_EXCEEDED: {
    status: undefined,
    message: "A policy expression is too long or nests too deeply.",
  },
  INVALID_POLICIES: { status: undefined, message: "The manifest's policies are invalid." },
  UNKNOWN_ENTITY: { status: undefined, message: "The entity is not in the manifest." },
  EXISTS_UNRESOLVED: {
    status: undefined,
    message: "A policy uses exists(...) but no lookup was given to answer it.",
  },
  INVALID_ACCESS_TESTS: {
    status: undefined,
    message: "The access tests file is invalid.",
  },
  INVALID_CLAIM: {
    status: undefined,
    message: "The claim is not of the form <Entity>.<action>: <expression>.",
  },
} as const satisfies ErrorTable;

export type PolicyErrorCode = keyof typeof policyErrorCodes;

/** The actions a policy rule can allow. */
export type PolicyAction = "read" | "insert" | "update" | "delete";

/** One problem in one policy rule, located by a 1-based column in the rule's source. */
export interface PolicyIssue {
  /** `POLICY_PARSE_ERROR`, `POLICY_TYPE_ERROR` or `POLICY_LIMIT_EXCEEDED`. */
  readonly code: "POLICY_PARSE_ERROR" | "POLICY_TYPE_ERROR" | "POLICY_LIMIT_EXCEEDED";
  /** The problem, ending in `at <column>`, without the policy prefix. */
  readonly message: string;
  /** 1-based column of the offending token in the rule's source. */
  readonly column: number;
  /** The policy's name, when the rule came from a manifest. */
  readonly policy?: string;
  readonly entity?: string;
  readonly action?: PolicyAction;
  /** The room kind, when the rule is a room's join rule. */
  readonly room?: string;
  /** The rule's source text, when known, for showing where `column` points. */
  readonly source?: string;
}

/** The manifest key of an action's rule: `read` -> `allowRead`. */
export function ruleKey(action: PolicyAction): string {
  return `allow${action.charAt(0).toUpperCase()}${action.slice(1)}`;
}

/**
 * Renders an issue as one line: `policy "own todos" (Todo.allowRead): unknown
 * field data.owner at 16`, `room "game" (join): unknown room.kind at 1`, or
 * just the message when it has no policy.
 */
export function formatPolicyIssue(issue: PolicyIssue): string {
  if (issue.room !== undefined)
    return `room ${JSON.stringify(issue.room)} (join): ${issue.message}`;
  if (issue.entity === undefined || issue.action === undefined) return issue.message;
  const where = `${issue.entity}.${ruleKey(issue.action)}`;
  return issue.policy === undefined
    ? `${where}: ${issue.message}`
    : `policy ${JSON.stringify(issue.policy)} (${where}): ${issue.message}`;
}

/**
 * `formatPolicyIssue`'s line, then the rule with a caret under the column
 * when the issue carries its source:
 *
 * ```text
 * policy "own todos" (Todo.allowRead): unknown field data.owner (did you mean data.ownerId?) at 16
 *     auth.userId == data.owner
 *                    ^
 * ```
 */
export function renderPolicyIssue(issue: PolicyIssue, indent = "    "): string {
  const line = formatPolicyIssue(issue);
  if (issue.source === undefined || issue.source.includes("\n") || issue.source.length > 200) {
    return line;
  }
  const caret = " ".repeat(Math.max(0, Math.min(issue.column - 1, issue.source.length)));
  return `${line}\n${indent}${issue.source}\n${indent}${caret}^`;
}

/**
 * The single error class of @svc/policy-engine, made by `defineErrors` from
 * `policyErrorCodes`; tell cases apart by `code`. Every code is local: no
 * status, `expose: false`.
 */
export class PolicyError extends defineErrors("PolicyError", policyErrorCodes) {
  /** Every problem found, for the parse, type, limit and `INVALID_POLICIES` codes. */
  readonly issues: readonly PolicyIssue[];

  constructor(
    code: PolicyErrorCode,
    options: DefinedErrorOptions & { readonly issues?: readonly PolicyIssue[] } = {},
  ) {
    super(code, options);
    this.issues = options.issues ?? [];
  }
}
