/**
 * The formatting the benchmark reports share: numbers as the tables print
 * them, and a Markdown table padded to its widest cell.
 */

export function formatInt(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

export function formatMs(value: number): string {
  // autocannon reports whole milliseconds on most platforms; keep what it gives.
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

export function formatRatio(value: number | undefined): string {
  return value === undefined ? "-" : `${value.toFixed(2)}x`;
}

/** A Markdown table, each column padded to its widest cell; the columns in `rightAligned` align right. */
export function table(
  rows: readonly (readonly string[])[],
  rightAligned: ReadonlySet<number>,
): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => row[c]?.length ?? 0))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, c) => {
          const width = widths[c] ?? 0;
          return rightAligned.has(c) ? cell.padStart(width) : cell.padEnd(width);
        })
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
