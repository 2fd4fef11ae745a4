import { type AuditEvent, operatorAuditKinds } from "@svc/auth-core";
import { isValidId } from "@svc/schema";
import { badge, idText, joined } from "./cells.js";
import { html, type SafeHTML } from "./html.js";
import { studioURL } from "./layout.js";

/** Whether an event was written by the studio (its actor, with no user). */
export function isStudioEvent(event: AuditEvent): boolean {
  return (operatorAuditKinds as readonly string[]).includes(event.kind);
}

function text(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "");
}

function changesList(changes: unknown): SafeHTML | undefined {
  if (typeof changes !== "object" || changes === null) return undefined;
  const entries = Object.entries(changes as Record<string, { from?: unknown; to?: unknown }>);
  if (entries.length === 0) return undefined;
  return html`<details class="fold"><summary>changes</summary><pre>${entries
    .map(([field, change]) => `${field}: ${text(change?.from)} → ${text(change?.to)}`)
    .join("\n")}</pre></details>`;
}

/**
 * The data of a studio event in words (the row, function, job or
 * connection it acted on, linked); undefined for other kinds, which the
 * page shows as JSON.
 */
export function auditDataCell(event: AuditEvent): SafeHTML | undefined {
  if (!isStudioEvent(event)) return undefined;
  const data = event.data;
  const session = typeof data.studio_session === "string" ? data.studio_session : undefined;
  const by =
    session === undefined
      ? undefined
      : html`<small title="The studio sign-in that did it">studio session <code>${session}</code></small>`;
  switch (event.kind) {
    case "StudioEdit": {
      const entity = text(data.entity);
      const rowId = text(data.row_id);
      const row =
        data.action !== "delete" && isValidId(rowId)
          ? idText(rowId, studioURL(["entities", entity, "rows", rowId]))
          : idText(rowId);
      const fields = Array.isArray(data.fields) ? data.fields.map(text).join(", ") : undefined;
      return joined(
        [
          html`${text(data.action)} <strong>${entity}</strong> ${row}`,
          fields !== undefined && fields !== "" && html`fields: ${fields}`,
          changesList(data.changes),
          by,
        ].filter((part) => part !== false && part !== undefined),
      );
    }
    case "StudioFunctionRun":
      return joined(
        [
          html`ran <code>${text(data.function)}</code>`,
          badge(text(data.outcome), data.outcome === "ok" ? "done" : "failed"),
          by,
        ].filter((part) => part !== undefined),
      );
    case "StudioJob":
      return joined(
        [
          html`${text(data.action)} job ${idText(text(data.job_id))}${data.job !== null && data.job !== undefined && html` <code>${text(data.job)}</code>`}`,
          by,
        ].filter((part) => part !== undefined),
      );
    case "StudioLiveClose":
      return joined(
        [
          html`closed ${text(data.transport)} connection <code>${text(data.connection_id)}</code>${typeof data.user_id === "string" && html` of user ${idText(data.user_id, studioURL(["users"], { id: data.user_id }))}`}`,
          by,
        ].filter((part) => part !== undefined),
      );
    default:
      return joined([html`signed in to the studio`, by].filter((part) => part !== undefined));
  }
}
