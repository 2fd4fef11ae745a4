import { type EntityDef, type FieldDef, findEntity, isValidId, type Manifest } from "@svc/schema";
import type { Row } from "@svc/store";
import {
  cellValue,
  copyButton,
  countText,
  idText,
  isoTimeCell,
  joined,
  jsonCell,
} from "./cells.js";
import { type Column, renderTable, type SortDirection, toolbar } from "./data-table.js";
import { textFromValue } from "./form-values.js";
import { html, type SafeHTML } from "./html.js";
import { csrfField, errorBox, noticeBox, pagerLinks, renderPage, studioURL } from "./layout.js";
import { MAX_PARAM_CHARS } from "./studio-http.js";

/** An error envelope's inner object. */
export interface ShownError {
  readonly code: string;
  readonly message: string;
}

/** Rows counted at most for a total ("100,000+ rows" past it). */
export const COUNT_CAP = 100_000;

/** The home page: every entity of the manifest, with its number of rows. */
export function renderEntityList(
  manifest: Manifest,
  counts: ReadonlyMap<string, number>,
  csrfToken: string,
): SafeHTML {
  const columns: Column<EntityDef>[] = [
    {
      key: "entity",
      label: "Entity",
      cell: (entity) => html`<a href="${studioURL(["entities", entity.name])}">${entity.name}</a>`,
    },
    {
      key: "rows",
      label: "Rows",
      className: "num",
      cell: (entity) => {
        const count = counts.get(entity.name);
        return count === undefined
          ? html`<span class="null">-</span>`
          : countText(count, COUNT_CAP, "row").replace(/ rows?$/, "");
      },
    },
    {
      key: "fields",
      label: "Fields",
      cell: (entity) =>
        html`<span class="muted">${entity.fields.map((field) => field.name).join(", ")}</span>`,
    },
    {
      key: "actions",
      label: "",
      className: "actions",
      cell: (entity) =>
        joined([
          html`<a href="${studioURL(["entities", entity.name, "new"])}">New row</a>`,
          html`<a href="${studioURL(["policies", entity.name])}">Policies</a>`,
        ]),
    },
  ];
  return renderPage({
    title: `Entities of ${manifest.name}`,
    csrfToken,
    section: "Entities",
    body: html`${toolbar({ total: countText(manifest.entities.length, Number.POSITIVE_INFINITY, "entity").replace("entitys", "entities") })}
      ${renderTable({ columns, rows: manifest.entities, empty: html`<p>The manifest declares no entities.</p>` })}`,
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

/** A rows page's order: a field (or `id`) and a direction. */
export interface RowOrder {
  readonly field: string;
  readonly direction: SortDirection;
}

/**
 * An entity's default order: newest first by its creation time (a
 * datetime field named `createdAt` or `created_at`, else the first with
 * `defaultNow`), else by id.
 */
export function defaultOrder(entity: EntityDef): RowOrder {
  const datetimes = entity.fields.filter((field) => field.type === "datetime");
  const created =
    datetimes.find((field) => field.name === "createdAt" || field.name === "created_at") ??
    datetimes.find((field) => field.type === "datetime" && field.defaultNow);
  return created === undefined
    ? { field: "id", direction: "asc" }
    : { field: created.name, direction: "desc" };
}

/** The link of a relation: an `id` field to its target's row, an owner field to the user's row. */
function relationHref(manifest: Manifest, field: FieldDef, value: unknown): string | undefined {
  if (!isValidId(value)) return undefined;
  if (field.type === "id") return studioURL(["entities", field.target, "rows", value]);
  if (field.type === "string" && field.owner && findEntity(manifest, "User") !== undefined) {
    return studioURL(["entities", "User", "rows", value]);
  }
  return undefined;
}

/** A stored value as the rows table shows it, by field kind. */
function fieldCell(manifest: Manifest, field: FieldDef, value: unknown): SafeHTML {
  if (value === null || value === undefined) return cellValue(value);
  const href = relationHref(manifest, field, value);
  if (href !== undefined) return idText(String(value), href);
  if (field.type === "file" && typeof value === "string") return idText(value);
  if (field.type === "json") return jsonCell(value);
  if (field.type === "datetime" && typeof value === "string") return isoTimeCell(value);
  return cellValue(value);
}

/**
 * What the studio's script needs to edit a cell in place: its kind, its
 * text and, for a choice, the choices. Json, owner and file fields are
 * edited in the row's form only.
 */
function editAttributes(field: FieldDef, value: unknown): SafeHTML | undefined {
  if (field.type === "json" || field.type === "file") return undefined;
  if (field.type === "string" && field.owner) return undefined;
  const text = textFromValue(field, value);
  const optional = field.optional ? [""] : [];
  switch (field.type) {
    case "bool":
      return html` data-edit="choice" data-value="${text}" data-choices="${JSON.stringify([...optional, "true", "false"])}" title="Double-click to edit"`;
    case "enum":
      return html` data-edit="choice" data-value="${text}" data-choices="${JSON.stringify([...optional, ...field.values])}" title="Double-click to edit"`;
    case "int":
    case "float":
      return html` data-edit="number" data-value="${text}" title="Double-click to edit"`;
    default:
      return html` data-edit="text" data-value="${text}" title="Double-click to edit"`;
  }
}

/**
 * The columns of an entity's rows: the id (linked to the row's page),
 * then each field (relations linked, json folded, scalar cells editable
 * in place), then `extra`.
 */
export function entityColumns(
  manifest: Manifest,
  entity: EntityDef,
  extra: readonly Column<Row>[] = [],
): Column<Row>[] {
  return [
    {
      key: "id",
      label: "id",
      sortable: true,
      className: "nowrap",
      cell: (row) => idText(row.id, studioURL(["entities", entity.name, "rows", row.id])),
    },
    ...entity.fields.map(
      (field): Column<Row> => ({
        key: field.name,
        label: field.name,
        sortable: field.type !== "json",
        ...((field.type === "int" || field.type === "float") && { className: "num" }),
        ...(field.type === "datetime" && { className: "nowrap" }),
        cell: (row) => fieldCell(manifest, field, row[field.name]),
        cellAttributes: (row) => editAttributes(field, row[field.name]),
      }),
    ),
    ...extra,
  ];
}

/** One page of an entity's rows with the filter form, the total, sortable headers and the pager. */
export function renderRowsPage(input: {
  readonly manifest: Manifest;
  readonly entity: EntityDef;
  readonly rows: readonly Row[];
  /** Rows the filter matches (counted up to `COUNT_CAP`); undefined when it could not be counted. */
  readonly total: number | undefined;
  readonly filter: RowFilter;
  readonly order: RowOrder;
  readonly cursor: string | undefined;
  readonly nextCursor: string | null;
  readonly notice?: string | undefined;
  readonly error?: ShownError | undefined;
  readonly csrfToken: string;
}): SafeHTML {
  const { manifest, entity, rows, filter, order } = input;
  const segments = ["entities", entity.name];
  const orderParams = { sort: order.field, dir: order.direction };
  const filterParams = { field: filter.field, value: filter.value };
  const filterForm = html`<form class="filter" method="get" action="${studioURL(segments)}">
    <label>Field <select name="field">
      <option value="">(none)</option>
      ${["id", ...filterableFields(entity).map((field) => field.name)].map(
        (name) =>
          html`<option value="${name}" ${name === filter.field && "selected"}>${name}</option>`,
      )}
    </select></label>
    <label>= value <input type="text" name="value" value="${filter.value ?? ""}" maxlength="${MAX_PARAM_CHARS}"></label>
    <input type="hidden" name="sort" value="${order.field}">
    <input type="hidden" name="dir" value="${order.direction}">
    <button type="submit">Filter</button>
    ${filter.field !== undefined && html`<a href="${studioURL(segments, orderParams)}">Clear</a>`}
  </form>`;
  const table = renderTable({
    columns: entityColumns(manifest, entity, [
      {
        key: "actions",
        label: "",
        className: "actions",
        cell: (row) =>
          html`<a href="${studioURL(["entities", entity.name, "rows", row.id])}">Edit</a>`,
      },
    ]),
    rows,
    rowId: (row) => row.id,
    sort: {
      ...order,
      href: (field, direction) =>
        studioURL(segments, { ...filterParams, sort: field, dir: direction }),
    },
    className: "rows",
    attributes: html` data-row-url="${studioURL(["entities", entity.name, "rows", "__id__"])}"`,
    empty: html`<p class="hint">No rows${filter.field !== undefined && " match the filter"}.</p>`,
  });
  const total =
    input.total === undefined
      ? undefined
      : `${countText(input.total, COUNT_CAP)}${filter.field !== undefined ? ` where ${filter.field} = ${filter.value ?? ""}` : ""}`;
  return renderPage({
    title: entity.name,
    csrfToken: input.csrfToken,
    section: "Entities",
    body: html`${input.notice !== undefined && noticeBox(input.notice)}
      ${input.error !== undefined && errorBox(input.error)}
      ${filterForm}
      ${toolbar({
        ...(total !== undefined && { total }),
        actions: html`<a class="button" href="${studioURL(["policies", entity.name])}">Policies</a>
          <a class="button primary" href="${studioURL(["entities", entity.name, "new"])}">New row</a>`,
      })}
      ${table}
      ${pagerLinks({
        segments,
        params: { ...filterParams, ...orderParams },
        cursor: input.cursor,
        nextCursor: input.nextCursor,
      })}
      <p><small>Double-click a cell to edit it in place (Enter saves, Escape cancels); json and owner fields are edited on the row's page.</small></p>`,
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

/** A field's input; a relation's input with a link to the row it names. */
function fieldControl(field: FieldDef, text: string): SafeHTML {
  if (field.type !== "id" || !isValidId(text)) return fieldInput(field, text);
  return html`<span class="toolbar">${fieldInput(field, text)}<a href="${studioURL(["entities", field.target, "rows", text])}">Open the ${field.target}</a></span>`;
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
    ${id !== undefined && html`<span>id</span><span class="id"><code>${id}</code>${copyButton(id)}</span>`}
    ${entity.fields.map(
      (
        field,
      ) => html`<label for="field-${field.name}">${field.name}<small>${fieldHint(field)}</small></label>
      ${fieldControl(field, texts[field.name] ?? "")}`,
    )}
    <div class="actions"><button type="submit" class="primary">${id === undefined ? "Insert" : "Save"}</button></div>
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
    section: "Entities",
    body: html`<p><a href="${studioURL(["entities", entity.name])}">Back to ${entity.name}</a></p>
      ${input.error !== undefined && errorBox(input.error)}
      ${form}
      ${deleteForm}`,
  });
}
