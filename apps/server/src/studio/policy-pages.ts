import { compilePolicies, explain, POLICY_ACTIONS } from "@svc/policy-engine";
import { authContextSchema, createAuthContext, findEntity, type PolicyDef } from "@svc/schema";
import { STORE_DIALECTS } from "@svc/store";
import type { RequestHandler, Router } from "express";
import type { z } from "zod";
import { formatExplanation } from "../cli/format-explanation.js";
import { html, type SafeHTML } from "./html.js";
import { errorBox, studioURL } from "./layout.js";
import {
  createPolicyAnalyses,
  renderAccessMatrix,
  renderLintFindings,
} from "./policy-analysis-views.js";
import { StudioError } from "./studio-errors.js";
import { queryParam, sendStudioPage } from "./studio-http.js";
import type { StudioOptions } from "./studio-options.js";

/** The caller to explain for, as `svc policy explain --auth` takes it: any fields of the auth context. */
const callerInput = authContextSchema.unwrap().partial().strict();

function parseCaller(text: string | undefined): z.infer<typeof callerInput> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new StudioError("INVALID_JSON", "The caller is not valid JSON.");
  }
  const parsed = callerInput.safeParse(value);
  if (!parsed.success) {
    throw new StudioError(
      "INVALID_FORM",
      `The caller: ${parsed.error.issues[0]?.message ?? "invalid"} (fields of the auth context, e.g. {"userId":"u1"}).`,
    );
  }
  return parsed.data;
}

function renderPolicySource(policies: readonly PolicyDef[]): SafeHTML {
  if (policies.length === 0) {
    return html`<p>No policy: only the admin token may read or write this entity.</p>`;
  }
  return html`${policies.map(
    (policy) =>
      html`<h3>${policy.name}</h3><pre class="policy">${JSON.stringify(policy, null, 2)}</pre>`,
  )}`;
}

/**
 * The policies pages: `/studio/policies` lists the lint findings of the
 * whole manifest; the page of one entity shows its policies as written,
 * its access matrix (kinds of caller × actions, with the deciding rule),
 * its lint findings, then, for a caller given as JSON (default:
 * anonymous), each action explained as
 * `svc policy explain` prints it, with a read's compiled SQL for SQLite and
 * for Postgres.
 */
export function registerPolicyPages(
  router: Router,
  options: StudioOptions,
  signedIn: readonly RequestHandler[],
): void {
  const { manifest } = options.store;
  const compiled = compilePolicies(manifest);
  const analyses = createPolicyAnalyses(compiled);

  router.get("/studio/policies", ...signedIn, (_req, res) => {
    sendStudioPage(res, {
      title: "Policies",
      section: "Policies",
      body: html`<p class="toolbar">${manifest.entities.map((entity) => html`<a class="button" href="${studioURL(["policies", entity.name])}">${entity.name}</a>`)}</p>
          <h2>Lint</h2>
          ${renderLintFindings(analyses.findings, true)}
          <p><small>The same findings as <code>svc policy lint</code>; the server prints the errors and warnings at boot in dev mode.</small></p>`,
    });
  });

  router.get("/studio/policies/:entity", ...signedIn, (req, res) => {
    const entity = findEntity(manifest, String(req.params.entity));
    if (entity === undefined)
      throw new StudioError("NOT_FOUND", "The manifest has no such entity.");
    const callerText = queryParam(req, "caller", 2048);
    let explained: SafeHTML;
    let status = 200;
    try {
      const auth = createAuthContext(parseCaller(callerText));
      explained = html`${POLICY_ACTIONS.map((action) => {
        // Only a read compiles to SQL; the other actions read the same in both dialects.
        const dialects = action === "read" ? STORE_DIALECTS : STORE_DIALECTS.slice(0, 1);
        return html`<h3>${action}</h3>${dialects.map(
          (dialect) =>
            html`${action === "read" && html`<p>${dialect}</p>`}<pre class="explain" data-action="${action}" data-dialect="${dialect}">${formatExplanation(
              explain(compiled, { entity: entity.name, action, auth, dialect }),
            )}</pre>`,
        )}`;
      })}`;
    } catch (error) {
      if (!(error instanceof StudioError)) throw error;
      status = error.status;
      explained = errorBox(error);
    }
    sendStudioPage(
      res,
      {
        title: `Policies of ${entity.name}`,
        section: "Policies",
        body: html`<p><a href="${studioURL(["entities", entity.name])}">Rows of ${entity.name}</a></p>
          ${renderPolicySource(manifest.policies.filter((policy) => policy.entity === entity.name))}
          <h2>Access matrix</h2>
          ${renderAccessMatrix(analyses.matrix(entity.name))}
          <h2>Lint</h2>
          ${renderLintFindings(
            analyses.findings.filter((finding) => finding.entity === entity.name),
            false,
          )}
          <h2>Explained</h2>
          <form class="filter" method="get" action="${studioURL(["policies", entity.name])}">
            <label>Caller (JSON) <input type="text" name="caller" size="50" value="${callerText ?? ""}" placeholder='{"userId":"u1","roles":["admin"]}'></label>
            <button type="submit">Explain</button>
          </form>
          ${explained}`,
      },
      status,
    );
  });
}
