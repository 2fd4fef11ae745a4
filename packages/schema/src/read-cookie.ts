/**
 * The value of cookie `name` in a `Cookie` header, or undefined when it is
 * absent or empty. Parsed as the `cookie` package parses (the first pair of
 * a name wins, blanks and tabs around names and values are dropped,
 * percent-escapes are decoded when valid), without a dependency, so the
 * caller seam stays in this dependency-free package.
 *
 * @example
 * readCookie("theme=dark; svc_session=svc_abc", "svc_session"); // "svc_abc"
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  // Most requests carry no such cookie: one substring test answers them.
  if (header === undefined || !header.includes(name)) return undefined;
  let start = 0;
  while (start < header.length) {
    const semicolon = header.indexOf(";", start);
    const end = semicolon === -1 ? header.length : semicolon;
    const equals = header.indexOf("=", start);
    if (equals !== -1 && equals < end && trimBlanks(header.slice(start, equals)) === name) {
      const value = decode(trimBlanks(header.slice(equals + 1, end)));
      return value === "" ? undefined : value;
    }
    start = end + 1;
  }
  return undefined;
}

function trimBlanks(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === " " || text[start] === "\t")) start++;
  while (end > start && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
  return text.slice(start, end);
}

function decode(value: string): string {
  if (!value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
