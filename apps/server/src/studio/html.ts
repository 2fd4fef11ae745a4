/**
 * Markup that is already safe to send: produced by the `html` tag (every
 * interpolation escaped) or by `trustedHTML` on a constant. Nothing else
 * reaches a studio page unescaped.
 */
export class SafeHTML {
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  toString(): string {
    return this.#text;
  }
}

/** What may be interpolated into `html`: text and numbers are escaped, `SafeHTML` is kept, lists are joined. */
export type HTMLValue =
  | SafeHTML
  | string
  | number
  | bigint
  | boolean
  | null
  | undefined
  | readonly HTMLValue[];

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/**
 * Escapes text for an HTML element body or a quoted attribute value (the
 * studio quotes every attribute).
 */
export function escapeHTML(text: string): string {
  return text.replace(/[&<>"'`]/g, (char) => ESCAPES[char] ?? char);
}

function render(value: HTMLValue): string {
  if (value instanceof SafeHTML) return value.toString();
  if (Array.isArray(value)) return value.map((item: HTMLValue) => render(item)).join("");
  // `false`, null and undefined render nothing, so `${cond && html`...`}` works.
  if (value === null || value === undefined || value === false) return "";
  return escapeHTML(String(value));
}

/**
 * The studio's template tag: the literal parts are markup, every
 * interpolation is escaped unless it is `SafeHTML` (a nested `html`).
 *
 * @example
 * html`<td>${row.title}</td>`; // "<td>&lt;script&gt;…</td>" for a hostile title
 */
export function html(strings: TemplateStringsArray, ...values: readonly HTMLValue[]): SafeHTML {
  let out = strings[0] ?? "";
  for (let index = 0; index < values.length; index++) {
    out += render(values[index]) + (strings[index + 1] ?? "");
  }
  return new SafeHTML(out);
}

/** Marks a constant string of markup as safe; never pass it anything derived from input. */
export function trustedHTML(markup: string): SafeHTML {
  return new SafeHTML(markup);
}
