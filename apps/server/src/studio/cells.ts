import { type HTMLValue, html, type SafeHTML, trustedHTML } from "./html.js";

/** Ids longer than this are shown shortened (a record id is 40 characters). */
const SHORT_ID_LENGTH = 8;
/** JSON up to this many characters is shown as it is; longer JSON is folded. */
const INLINE_JSON_CHARS = 48;
/** Text up to this many characters is shown as it is; longer text is folded. */
const INLINE_TEXT_CHARS = 160;

/** The first characters of a long id, then an ellipsis; short ids as they are. */
function shortId(id: string): string {
  return id.length > SHORT_ID_LENGTH + 4 ? `${id.slice(0, SHORT_ID_LENGTH)}…` : id;
}

/**
 * An id as a table shows it: shortened, the whole id in its `title` and
 * behind a copy button (shown by the studio's script), linked to `href`
 * when given.
 */
export function idText(id: string, href?: string): SafeHTML {
  const code = html`<code>${shortId(id)}</code>`;
  return html`<span class="id" title="${id}">${href === undefined ? code : html`<a href="${href}">${code}</a>`}${copyButton(id)}</span>`;
}

/** Two overlapping sheets: the copy icon, drawn inline (no icon font, no request). */
const COPY_ICON = trustedHTML(
  '<svg aria-hidden="true" viewBox="0 0 16 16" width="12" height="12"><rect x="5.5" y="5.5" width="8.5" height="8.5" rx="1.5" fill="none" stroke="currentColor" stroke-width="1.5"/><path d="M10.5 5.5V3.5a1.5 1.5 0 0 0-1.5-1.5H3.5A1.5 1.5 0 0 0 2 3.5V9a1.5 1.5 0 0 0 1.5 1.5h2" fill="none" stroke="currentColor" stroke-width="1.5"/></svg>',
);

/** A button that copies `text` (shown by the studio's script; without it the text is in the title). */
export function copyButton(text: string): SafeHTML {
  return html`<button type="button" class="copy" data-copy="${text}" aria-label="Copy ${text}" title="Copy" hidden>${COPY_ICON}</button>`;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A stored ISO 8601 datetime, compact (`2025-01-31 09:30:05Z`), the whole value in its title. */
export function isoTimeCell(value: string): SafeHTML {
  if (!ISO_TIME.test(value)) return html`${value}`;
  return html`<time datetime="${value}" title="${value}">${value.slice(0, 19).replace("T", " ")}Z</time>`;
}

/** A JSON value: short ones inline, longer ones folded (`<details>`) with the start as summary. */
export function jsonCell(value: unknown): SafeHTML {
  const compact = JSON.stringify(value) ?? "null";
  if (compact.length <= INLINE_JSON_CHARS) return html`<code>${compact}</code>`;
  return html`<details class="fold"><summary><code>${compact.slice(0, INLINE_JSON_CHARS - 8)}…</code></summary><pre>${JSON.stringify(value, null, 2)}</pre></details>`;
}

/** Text: short text as it is, long text folded. */
function textCell(text: string): SafeHTML {
  if (text.length <= INLINE_TEXT_CHARS) return html`${text}`;
  return html`<details class="fold"><summary>${text.slice(0, 60)}…</summary><pre>${text}</pre></details>`;
}

/** A value as a table cell shows it: null dimmed, objects as (folded) JSON, long text folded. */
export function cellValue(value: unknown): SafeHTML {
  if (value === null || value === undefined) return html`<span class="null">null</span>`;
  if (typeof value === "object") return jsonCell(value);
  if (typeof value === "string") return textCell(value);
  return html`${String(value)}`;
}

/** A unix-ms time as a compact UTC `<time>` (`2025-01-31 09:30:05Z`, the ISO form in its title). */
export function timeCell(ms: number | null): SafeHTML {
  if (ms === null) return html`<span class="null">-</span>`;
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}" title="${iso}">${iso.slice(0, 19).replace("T", " ")}Z</time>`;
}

/** "1 row", "55 rows", "100,000+ rows" (a count that reached its cap). */
export function countText(count: number, cap: number, noun = "row"): string {
  const plural = count === 1 ? noun : `${noun}s`;
  return `${count.toLocaleString("en-US")}${count >= cap ? "+" : ""} ${plural}`;
}

/** A status word as a coloured badge (`status-<word>` picks the colour). */
export function badge(text: string, kind: string = text): SafeHTML {
  return html`<span class="badge status-${kind}">${text}</span>`;
}

/** Joins items with a separator, e.g. links with " · ". */
export function joined(items: readonly HTMLValue[], separator: HTMLValue = " · "): SafeHTML {
  return html`${items.map((item, index) => html`${index > 0 && separator}${item}`)}`;
}
