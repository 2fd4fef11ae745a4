import { type HTMLValue, html, type SafeHTML } from "./html.js";

/** A sort direction as the query string carries it (`dir=`). */
export type SortDirection = "asc" | "desc";

/** One column of a studio table. */
export interface Column<TRow> {
  /** The cell's `data-field`, and the sort key when `sortable`. */
  readonly key: string;
  readonly label: string;
  readonly cell: (row: TRow) => HTMLValue;
  /** The header is a link that sorts by this column. Default false. */
  readonly sortable?: boolean;
  /** `num` (right-aligned figures), `nowrap` or `actions`. */
  readonly className?: string;
  /** More attributes of each cell, already escaped (e.g. `data-edit`). */
  readonly cellAttributes?: (row: TRow) => SafeHTML | undefined;
}

/** The table's current order and how to link to another. */
export interface SortState {
  readonly field: string;
  readonly direction: SortDirection;
  /** The page's URL sorted by `field` in `direction`. */
  readonly href: (field: string, direction: SortDirection) => string;
}

function header<TRow>(column: Column<TRow>, sort: SortState | undefined): SafeHTML {
  const className = column.className === undefined ? undefined : column.className;
  if (sort === undefined || column.sortable !== true) {
    return html`<th scope="col"${className !== undefined && html` class="${className}"`}>${column.label}</th>`;
  }
  const current = sort.field === column.key;
  // A click on the sorted column turns it around; on another, sorts it ascending.
  const next: SortDirection = current && sort.direction === "asc" ? "desc" : "asc";
  const arrow = current ? (sort.direction === "asc" ? "▲" : "▼") : "↕";
  return html`<th scope="col"${className !== undefined && html` class="${className}"`}${current && html` aria-sort="${sort.direction === "asc" ? "ascending" : "descending"}"`}><a class="sort" href="${sort.href(column.key, next)}" title="Sort by ${column.label}${current ? (next === "asc" ? " ascending" : " descending") : ""}">${column.label}<span class="arrow" aria-hidden="true">${arrow}</span></a></th>`;
}

/**
 * A table in a scrolling frame with sticky headers: one `<tr data-id>` per
 * row (when `rowId` is given) and one `<td data-field>` per column; headers
 * of sortable columns link to the page sorted by them. `empty` is shown
 * instead of a table without rows.
 */
export function renderTable<TRow>(input: {
  readonly columns: readonly Column<TRow>[];
  readonly rows: readonly TRow[];
  readonly rowId?: (row: TRow) => string;
  readonly sort?: SortState | undefined;
  readonly empty: HTMLValue;
  /** The table's class, e.g. `rows`. */
  readonly className?: string;
  /** More attributes of the table, already escaped. */
  readonly attributes?: SafeHTML;
}): SafeHTML {
  const { columns, rows, rowId, sort } = input;
  if (rows.length === 0) return html`${input.empty}`;
  const body = rows.map(
    (row) =>
      html`<tr${rowId !== undefined && html` data-id="${rowId(row)}"`}>${columns.map(
        (column) =>
          html`<td data-field="${column.key}"${column.className !== undefined && html` class="${column.className}"`}${column.cellAttributes?.(row)}>${column.cell(row)}</td>`,
      )}</tr>`,
  );
  return html`<div class="table-wrap"><table${input.className !== undefined && html` class="${input.className}"`}${input.attributes}>
    <thead><tr>${columns.map((column) => header(column, sort))}</tr></thead>
    <tbody>${body}</tbody>
  </table></div>`;
}

/** The line above a table: the total on the left, `actions` on the right. */
export function toolbar(input: {
  readonly total?: string;
  readonly actions?: HTMLValue;
}): SafeHTML {
  return html`<div class="toolbar">${input.total !== undefined && html`<span class="total">${input.total}</span>`}<span class="spacer"></span>${input.actions}</div>`;
}
