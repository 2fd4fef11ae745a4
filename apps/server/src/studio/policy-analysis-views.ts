import type { CompiledPolicies } from "@svc/policy-engine";
import {
  type AccessMatrix,
  accessMatrix,
  type LintFinding,
  lintPolicies,
} from "@svc/policy-engine/analysis";
import { html, type SafeHTML } from "./html.js";
import { studioURL } from "./layout.js";

const VERDICT_TEXT = { allow: "allow", some: "some rows", deny: "deny" } as const;

/**
 * The policy analyses a studio shows, computed once per server (the
 * manifest does not change while it runs): the lint findings, and each
 * entity's access matrix when first asked for.
 */
export interface PolicyAnalyses {
  readonly findings: readonly LintFinding[];
  matrix(entity: string): AccessMatrix;
}

/** Runs the lint now and the matrices lazily, each once. */
export function createPolicyAnalyses(compiled: CompiledPolicies): PolicyAnalyses {
  const findings = lintPolicies(compiled);
  const matrices = new Map<string, AccessMatrix>();
  return {
    findings,
    matrix(entity) {
      let matrix = matrices.get(entity);
      if (matrix === undefined) {
        matrix = accessMatrix(compiled, entity);
        matrices.set(entity, matrix);
      }
      return matrix;
    },
  };
}

/** The access matrix: one row per kind of caller, one cell per action, with what decided. */
export function renderAccessMatrix(matrix: AccessMatrix): SafeHTML {
  const actions = matrix.rows[0]?.cells.map((cell) => cell.action) ?? [];
  return html`<div class="table-wrap"><table class="matrix" data-entity="${matrix.entity}">
    <thead><tr><th>Caller</th>${actions.map((action) => html`<th>${action}</th>`)}</tr></thead>
    <tbody>${matrix.rows.map(
      (row) =>
        html`<tr><th scope="row">${row.caller.label}</th>${row.cells.map(
          (cell) =>
            html`<td class="verdict-${cell.verdict}" data-action="${cell.action}" data-verdict="${cell.verdict}"><strong>${VERDICT_TEXT[cell.verdict]}</strong>${cell.verdict === "some" && html` (${cell.allowed} of ${cell.searched})`}<small>${cell.reason}</small></td>`,
        )}</tr>`,
    )}</tbody>
  </table></div>
  <p><small>Each cell: whether the policies, as the store applies them (admin token, owner field, the read policy in front of updates and deletes), allow the action on every row of a bounded search, on some, or on none; with the rule that decided. <code>svc policy check</code> searches further.</small></p>`;
}

/** Lint findings as a table; `linkEntities` links each entity to its policies page. */
export function renderLintFindings(
  findings: readonly LintFinding[],
  linkEntities: boolean,
): SafeHTML {
  if (findings.length === 0)
    return html`<p class="notice" role="status">The policy lint finds nothing.</p>`;
  return html`<div class="table-wrap"><table class="lint">
    <thead><tr><th>Level</th><th>Code</th><th>Entity</th><th>Finding</th></tr></thead>
    <tbody>${findings.map(
      (finding) => html`<tr data-code="${finding.code}" data-level="${finding.level}">
        <td class="level-${finding.level}">${finding.level}</td>
        <td><code>${finding.code}</code></td>
        <td>${linkEntities ? html`<a href="${studioURL(["policies", finding.entity])}">${finding.entity}</a>` : finding.entity}${finding.action !== undefined && html` · ${finding.action}`}</td>
        <td>${finding.message}${finding.rule !== undefined && html`<br><code>${finding.rule}</code>`}${finding.index !== undefined && html`<br>Add to the manifest: <code>${JSON.stringify(finding.index.manifest)}</code>`}${finding.witness !== undefined && html`<br><small>e.g. caller <code>${JSON.stringify(finding.witness.auth)}</code>${finding.witness.existing !== undefined && html`, stored row <code>${JSON.stringify(finding.witness.existing)}</code>`}${finding.witness.data !== undefined && html`, new row <code>${JSON.stringify(finding.witness.data)}</code>`}</small>`}</td>
      </tr>`,
    )}</tbody>
  </table></div>`;
}
