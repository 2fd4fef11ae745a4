import { adminAuth } from "@svc/store";
import type { Request, RequestHandler, Response, Router } from "express";
import { toErrorResponse } from "../errors.js";
import { html, type SafeHTML } from "./html.js";
import { csrfField, renderPage, studioURL } from "./layout.js";
import { studioEvent } from "./studio-audit.js";
import { StudioError } from "./studio-errors.js";
import { checkCsrfToken, formField, sendPage, sessionOf } from "./studio-http.js";
import type { StudioOptions } from "./studio-options.js";

/** The code of an error envelope (`{error: {code}}`), or `ERROR`. */
function errorCodeOf(body: unknown): string {
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === "string" ? code : "ERROR";
}

/** What a run answered: the result, or the error envelope the API would send. */
type RunOutcome =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly body: unknown; readonly status: number };

function renderFunctionsPage(input: {
  readonly names: readonly string[];
  readonly chosen: string | undefined;
  readonly argsText: string;
  readonly outcome: RunOutcome | undefined;
  readonly csrfToken: string;
}): SafeHTML {
  const { names, chosen, argsText, outcome, csrfToken } = input;
  const form = html`<form class="fields" method="post" action="${studioURL(["functions"])}">
    ${csrfField(csrfToken)}
    <label for="fn-name">Function</label>
    <select id="fn-name" name="name">${names.map(
      (name) => html`<option value="${name}" ${name === chosen && "selected"}>${name}</option>`,
    )}</select>
    <label for="fn-args">Arguments<small>a JSON object</small></label>
    <textarea id="fn-args" name="args" spellcheck="false">${argsText}</textarea>
    <div class="actions"><button type="submit" class="primary">Run as admin</button></div>
  </form>`;
  const result =
    outcome === undefined
      ? undefined
      : outcome.ok
        ? html`<h2>Result</h2><pre class="result">${JSON.stringify(outcome.result, null, 2)}</pre>`
        : html`<h2>Error (${outcome.status})</h2><pre class="error">${JSON.stringify(outcome.body, null, 2)}</pre>`;
  return renderPage({
    title: "Functions",
    csrfToken,
    section: "Functions",
    body: html`${names.length === 0 ? html`<p>The app has no server functions.</p>` : form}${result}`,
  });
}

/**
 * The functions page: pick a function, give JSON arguments, run it with the
 * admin token's rights through the server's runner; the result or the
 * error envelope (as `POST /api/fn/<name>` would answer) is shown. Each
 * run of a known function is a `StudioFunctionRun` audit event.
 */
export function registerFunctionPages(
  router: Router,
  options: StudioOptions,
  signedIn: readonly RequestHandler[],
): void {
  const names = (): readonly string[] => options.functions.names();

  router.get("/studio/functions", ...signedIn, (_req, res) => {
    sendPage(
      res,
      200,
      renderFunctionsPage({
        names: names(),
        chosen: undefined,
        argsText: "{}",
        outcome: undefined,
        csrfToken: sessionOf(res).csrfToken,
      }),
    );
  });

  router.post("/studio/functions", ...signedIn, async (req: Request, res: Response) => {
    checkCsrfToken(req, res);
    const name = formField(req, "name") ?? "";
    const argsText = formField(req, "args") ?? "{}";
    let outcome: RunOutcome;
    try {
      let args: unknown;
      try {
        args = JSON.parse(argsText === "" ? "{}" : argsText);
      } catch {
        throw new StudioError("INVALID_JSON", "The arguments are not valid JSON.");
      }
      outcome = { ok: true, result: (await options.functions.run(name, args, adminAuth)) ?? null };
    } catch (error) {
      const response = toErrorResponse(error);
      if (response.internal || response.status >= 500) options.onInternalError?.(error, req);
      outcome = { ok: false, body: response.body, status: response.status };
    }
    // Which function ran and how it ended, never its arguments (they may hold anything).
    if (names().includes(name)) {
      await options.auth.recordOperatorAudit(
        studioEvent(req, res, "StudioFunctionRun", {
          function: name,
          outcome: outcome.ok ? "ok" : errorCodeOf(outcome.body),
        }),
      );
    }
    sendPage(
      res,
      outcome.ok ? 200 : outcome.status,
      renderFunctionsPage({
        names: names(),
        chosen: name,
        argsText,
        outcome,
        csrfToken: sessionOf(res).csrfToken,
      }),
    );
  });
}
