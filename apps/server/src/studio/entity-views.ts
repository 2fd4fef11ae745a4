import type { EntityDef, FieldDef, Manifest } from "@svc/schema";
import type { Row } from "@svc/store";
import { html, type SafeHTML } from "./html.js";
import {
  cellValue,
  csrfField,
  errorBox,
  noticeBox,
  pagerLinks,
  renderPage,
  studioURL,
} from "./layout.js";

/** An error envelope's inner object. */
export interface ShownError {
  readonly code: string;
  readonly message: string;
}

/** The home page: every entity of the manifest. */
export function renderEntityList(manifest: Manifest, csrfToken: string): SafeHTML {
  const rows = manifest.entities.map(
    (entity) => html`<tr>
      <td><a href="${studioURL(["entities", entity.name])}">${entity.name}</a></td>
      <td>${entity.fields.map((field) => field.name).join(", ")}</td>
      <td><a href="${studioURL(["entities", entity.name, "new"])}">New row</a>
        · <a href="${studioURL(["policies", entity.name])}">Policies</a></td>
    </tr>`,
  );
  return renderPage({
    title: `Entities of ${manifest.name}`,
    csrfToken,
    body: html`<table>
      <thead><tr><th>Entity</th><th>Fields</th><th></th></tr></thead>
      <tbody>${rows}</tbody>
    </table>`,
  });
}

/** The fields a list can filter on (json cannot be). */
function filterableFields(entity: EntityDef): FieldDef[] {
  return entity.fields.filter((field) => field.type !== "json");
}

/** A rows page's filter: `field = value`. */
export interface RowFilter {
  readonly field: string | undefined;
  readonly value: string | undefined;
}

/** One page of an entity's rows with the filter form and the pager. */
export function renderRowsPage(input: {
  readonly entity: EntityDef;
  readonly rows: readonly Row[];
  readonly filter: RowFilter;
  readonly cursor: string | undefined;
  readonly nextCursor: string | null;
  readonly notice?: string | undefined;
  readonly error?: ShownError | undefined;
  readonly csrfToken: string;
}): SafeHTML {
  const { entity, rows, filter } = input;
  const columns = ["id", ...entity.fields.map((field) => field.name)];
  const filterForm = html`<form class="filter" method="get" action="${studioURL(["entities", entity.name])}">
    <label>Field <select name="field">
      <option value="">(none)</option>
      ${["id", ...filterableFields(entity).map((field) => field.name)].map(
        (name) =>
          html`<option value="${name}" ${name === filter.field && "selected"}>${name}</option>`,
      )}
    </select></label>
    <label>= value <input type="text" name="value" value="${filter.value ?? ""}"></label>
    <button type="submit">Filter</button>
  </form>`;
  const table = html`<table class="rows">
    <thead><tr>${columns.map((column) => html`<th>${column}</th>`)}<th></th></tr></thead>
    <tbody>${rows.map(
      (row) => html`<tr data-id="${row.id}">
        ${columns.map((column) => html`<td data-field="${column}">${cellValue(row[column])}</td>`)}
        <td><a href="${studioURL(["entities", entity.name, "rows", row.id])}">Edit</a></td>
      </tr>`,
    )}</tbody>
  </table>`;
  return renderPage({
    title: entity.name,
    csrfToken: input.csrfToken,
    body: html`${input.notice !== undefined && noticeBox(input.notice)}
      ${input.error !== undefined && errorBox(input.error)}
      <p><a href="${studioURL(["entities", entity.name, "new"])}">New row</a>
        · <a href="${studioURL(["policies", entity.name])}">Policies</a></p>
      ${filterForm}
      ${rows.length === 0 ? html`<p>No rows.</p>` : table}
      ${pagerLinks({
        segments: ["entities", entity.name],
        params: { field: filter.field, value: filter.value },
        cursor: input.cursor,
        nextCursor: input.nextCursor,
      })}`,
  });
}

function fieldHint(field: FieldDef): string {
  const parts: string[] = [field.type];
  if (field.type === "id") parts.push(`of ${field.target}`);
  if (field.optional) parts.push("optional, empty = null");
  if (field.type === "string" && field.owner) parts.push("owner");
  if (field.type === "datetime")
    parts.push(field.defaultNow ? "ISO 8601, empty = now" : "ISO 8601");
  return parts.join(", ");
}

/** The input for one field, typed by its kind. */
function fieldInput(field: FieldDef, text: string): SafeHTML {
  const id = `field-${field.name}`;
  switch (field.type) {
    case "bool":
    case "enum": {
      const choices = field.type === "bool" ? ["true", "false"] : field.values;
      return html`<select id="${id}" name="${field.name}">
        ${(field.optional || text === "") && html`<option value="" ${text === "" && "selected"}>${field.optional ? "null" : "(choose)"}</option>`}
        ${choices.map((choice) => html`<option value="${choice}" ${choice === text && "selected"}>${choice}</option>`)}
      </select>`;
    }
    case "int":
    case "float":
      return html`<input id="${id}" name="${field.name}" type="number" step="${field.type === "int" ? "1" : "any"}" value="${text}">`;
    case "json":
      return html`<textarea id="${id}" name="${field.name}" spellcheck="false">${text}</textarea>`;
    default:
      return html`<input id="${id}" name="${field.name}" type="text" value="${text}">`;
  }
}

/** The insert form (`id` undefined) or the edit form of one row, with the delete button. */
export function renderRowForm(input: {
  readonly entity: EntityDef;
  readonly id: string | undefined;
  /** Each field's text as the boxes show it. */
  readonly texts: Readonly<Record<string, string>>;
  readonly error?: ShownError | undefined;
  readonly csrfToken: string;
}): SafeHTML {
  const { entity, id, texts, csrfToken } = input;
  const action =
    id === undefined
      ? studioURL(["entities", entity.name, "new"])
      : studioURL(["entities", entity.name, "rows", id]);
  const form = html`<form class="fields" method="post" action="${action}">
    ${csrfField(csrfToken)}
    ${id !== undefined && html`<span>id</span><code>${id}</code>`}
    ${entity.fields.map(
      (
        field,
      ) => html`<label for="field-${field.name}">${field.name}<small>${fieldHint(field)}</small></label>
      ${fieldInput(field, texts[field.name] ?? "")}`,
    )}
    <div class="actions"><button type="submit">${id === undefined ? "Insert" : "Save"}</button></div>
  </form>`;
  const deleteForm =
    id !== undefined &&
    html`<h2>Delete</h2>
    <form method="post" action="${studioURL(["entities", entity.name, "rows", id, "delete"])}" data-confirm="Delete this row?">
      ${csrfField(csrfToken)}<button type="submit" class="danger">Delete row</button>
    </form>`;
  return renderPage({
    title: id === undefined ? `New ${entity.name}` : `${entity.name} ${id}`,
    csrfToken,
    body: html`<p><a href="${studioURL(["entities", entity.name])}">Back to ${entity.name}</a></p>
      ${input.error !== undefined && errorBox(input.error)}
      ${form}
      ${deleteForm}`,
  });
}
