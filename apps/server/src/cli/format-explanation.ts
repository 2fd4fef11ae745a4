import type { ExplainedSQL, Explanation } from "@svc/policy-engine";

const RULE_KEY = {
  read: "allowRead",
  insert: "allowInsert",
  update: "allowUpdate",
  delete: "allowDelete",
} as const;

function renderSQL(sql: ExplainedSQL | "all" | "none"): string {
  if (sql === "all") return "every row (the caller's auth settles it)";
  if (sql === "none") return "no row (the caller's auth rules every row out)";
  return `${sql.sql}   -- parameters ${JSON.stringify(sql.parameters)}`;
}

/** Renders an `explain` result as the text `svc policy explain` prints. */
export function formatExplanation(explanation: Explanation): string {
  const { entity, action, rules } = explanation;
  const lines = [
    `${entity}.${RULE_KEY[action]}: ${rules.length === 0 ? "no rule (denied to all but the admin token)" : `${rules.length} rule${rules.length === 1 ? "" : "s"}, any one allows`}`,
  ];
  for (const rule of rules) {
    lines.push(``, `  policy ${JSON.stringify(rule.policy)}`, `    rule:   ${rule.formatted}`);
    if (rule.sql !== undefined) lines.push(`    sql:    ${renderSQL(rule.sql)}`);
    if (rule.outcome !== undefined) {
      lines.push(
        `    result: ${rule.outcome.value} (decided by \`${rule.outcome.decidedBy}\` at column ${rule.outcome.column})`,
      );
    }
  }
  if (explanation.sql !== undefined) lines.push(``, `query: ${renderSQL(explanation.sql)}`);
  if (explanation.verdict !== undefined) lines.push(``, `verdict: ${explanation.verdict.reason}`);
  return `${lines.join("\n")}\n`;
}
