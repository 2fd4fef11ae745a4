import { formatAuth } from "../access-tests/format-report.js";
import { ruleKey } from "../errors.js";
import type { ClaimReport } from "./check-claim.js";
import type { AccessWitness, PolicyDiff } from "./diff-policies.js";
import type { FoundCandidate } from "./find-candidate.js";
import type { LintFinding } from "./lint-policies.js";
import { describeSearch } from "./search-plan.js";

function rowLines(
  candidate: Pick<FoundCandidate, "existing" | "data" | "stored">,
  indent: string,
): string[] {
  const lines: string[] = [];
  if (candidate.existing !== undefined)
    lines.push(`${indent}stored row: ${JSON.stringify(candidate.existing)}`);
  if (candidate.data !== undefined)
    lines.push(`${indent}new row:    ${JSON.stringify(candidate.data)}`);
  const others = Object.entries(candidate.stored).filter(([, rows]) => rows.length > 0);
  for (const [entity, rows] of others) {
    lines.push(
      `${indent}also stored: ${entity} ${rows.map((row) => JSON.stringify(row)).join(", ")}`,
    );
  }
  return lines;
}

function witnessLines(label: string, witness: AccessWitness): string[] {
  return [
    `  ${label}: caller ${formatAuth(witness.auth)}`,
    ...rowLines(witness, "    "),
    `    before: ${witness.before.reason}`,
    `    after:  ${witness.after.reason}`,
  ];
}

/** The diff as `svc policy diff` prints it: each change with its witness and search, then a summary. */
export function formatPolicyDiff(diff: PolicyDiff): string {
  const blocks: string[] = [];
  let same = 0;
  let unchanged = 0;
  for (const item of diff.actions) {
    if (item.change === "same") {
      same += 1;
      if (item.unchanged) unchanged += 1;
      continue;
    }
    const lines = [`${item.entity}.${ruleKey(item.action)}: ${item.change}`];
    if (item.widened !== undefined)
      lines.push(...witnessLines("admitted now, refused before", item.widened));
    if (item.narrowed !== undefined)
      lines.push(...witnessLines("refused now, admitted before", item.narrowed));
    if (item.search !== undefined) lines.push(`  (${describeSearch(item.search, item.entity)})`);
    blocks.push(lines.join("\n"));
  }
  const changed = diff.actions.length - same;
  blocks.push(
    `${changed === 0 ? "no access changed" : `${changed} change${changed === 1 ? "" : "s"}${diff.widened ? ", access widened" : ""}`}; ${same} entity actions the same (${unchanged} with unchanged rules, ${same - unchanged} searched)`,
  );
  return `${blocks.join("\n\n")}\n`;
}

/** Lint findings as `svc policy lint` prints them, most severe first, then a count per level. */
export function formatLintFindings(findings: readonly LintFinding[]): string {
  const order = { error: 0, warning: 1, info: 2 } as const;
  const sorted = [...findings].sort((a, b) => order[a.level] - order[b.level]);
  const blocks = sorted.map((finding) => {
    const lines = [
      `${finding.level} ${finding.code} ${finding.entity}${finding.action === undefined ? "" : `.${ruleKey(finding.action)}`}`,
      `  ${finding.message}`,
    ];
    if (finding.rule !== undefined) lines.push(`  rule: ${finding.rule}`);
    if (finding.witness !== undefined) {
      lines.push(
        `  e.g. caller ${formatAuth(finding.witness.auth)}`,
        ...rowLines(finding.witness, "    "),
      );
    }
    if (finding.index !== undefined) {
      lines.push(
        `  add to ${finding.entity}'s indexes: ${JSON.stringify(finding.index.manifest)}`,
        `  (the store then runs: ${finding.index.sql})`,
      );
    }
    return lines.join("\n");
  });
  const count = (level: LintFinding["level"]) =>
    findings.filter((finding) => finding.level === level).length;
  blocks.push(`${count("error")} errors, ${count("warning")} warnings, ${count("info")} notes`);
  return `${blocks.join("\n\n")}\n`;
}

/** A claim check as `svc policy check` prints it: the verdict, a counterexample, SQL agreement, the domain. */
export function formatClaimReport(report: ClaimReport): string {
  const head = `${report.entity}.${report.action}: ${report.claim}`;
  const lines: string[] = [];
  if (report.counterexample === undefined) {
    lines.push(
      `holds: ${head}`,
      "  no caller and row searched is admitted by the policies and refused by the claim",
    );
  } else {
    const { candidate, reason, claimFalse } = report.counterexample;
    lines.push(
      `counterexample (${report.counterexamples} found): ${head}`,
      `  caller ${formatAuth(candidate.auth)}`,
      ...rowLines(candidate, "    "),
      `    the policies: ${reason}`,
      `    the claim:    ${claimFalse} is false`,
    );
  }
  for (const check of report.sql) {
    lines.push(
      check.disagreements === 0
        ? `  ${check.database}: the SQL agrees with the evaluator on all ${check.checked} candidates it decides`
        : `  ${check.database}: the SQL DISAGREES with the evaluator on ${check.disagreements} of ${check.checked} candidates (a compiler or storage bug):`,
    );
    for (const shown of check.shown) {
      lines.push(
        `    caller ${formatAuth(shown.candidate.auth)}: evaluator ${shown.evaluator}, SQL ${shown.sql}`,
        ...rowLines(shown.candidate, "      "),
      );
    }
  }
  lines.push(`  (${describeSearch(report.search, report.entity)})`);
  return `${lines.join("\n")}\n`;
}
