import type { PolicyAuth } from "../condition.js";
import type { AccessMismatch, AccessTestReport } from "./run-access-tests.js";

const VERB = { read: "reads", insert: "inserts", update: "updates", delete: "deletes" } as const;

/** The non-default parts of a caller's auth, as JSON: `{"userId":"u1","roles":["owner"]}`. */
export function formatAuth(auth: PolicyAuth): string {
  const parts: Record<string, unknown> = {};
  if (auth.userId !== null) parts.userId = auth.userId;
  if (auth.tenantId !== null) parts.tenantId = auth.tenantId;
  if (auth.roles.length > 0) parts.roles = auth.roles;
  if (auth.entitlements.length > 0) parts.entitlements = auth.entitlements;
  if (auth.isAdmin) parts.isAdmin = true;
  if (auth.isGuest) parts.isGuest = true;
  return Object.keys(parts).length === 0 ? "anonymous" : JSON.stringify(parts);
}

function formatMismatch(source: string, item: AccessMismatch): string {
  const entry = `${source} expect[${item.index}]${item.label === undefined ? "" : ` ${JSON.stringify(item.label)}`}`;
  const target = item.row === undefined ? item.entity : `${item.entity} row ${item.row}`;
  const what = `${item.caller} ${VERB[item.action]} ${target}`;
  const headline =
    item.kind === "expectation"
      ? `${what}: expected ${item.expected}, the policies ${item.actual}`
      : `${what}: the SQL on ${item.database} gives ${item.actual}, the evaluator ${item.expected} (a compiler or storage disagreement)`;
  const lines = [`FAIL ${entry}`, `  ${headline}`, `  caller:  ${formatAuth(item.auth)}`];
  if (item.existing !== undefined) lines.push(`  stored:  ${JSON.stringify(item.existing)}`);
  if (item.data !== undefined && item.action !== "read") {
    lines.push(`  data:    ${JSON.stringify(item.data)}`);
  }
  lines.push(`  decided: ${item.reason}`);
  return lines.join("\n");
}

/** The report as `svc policy test` prints it: one block per mismatch, then a summary line. */
export function formatAccessReport(report: AccessTestReport, source: string): string {
  const where = ["evaluator", ...report.databases].join(", ");
  const blocks = report.mismatches.map((item) => formatMismatch(source, item));
  const summary =
    report.mismatches.length === 0
      ? `ok ${source}: ${report.checks} checks pass (${where})`
      : `${source}: ${report.mismatches.length} mismatch${report.mismatches.length === 1 ? "" : "es"} in ${report.checks} checks (${where})`;
  return `${[...blocks, summary].join("\n\n")}\n`;
}
