/**
 * Request headers as Node (`IncomingHttpHeaders`) and most frameworks hand
 * them over: names in any case, a value or a list of values.
 */
export type McpHttpHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** A case-insensitive view of request headers; lists are joined with ", ". */
export type HeaderLookup = (name: string) => string | undefined;

/** Build a case-insensitive header lookup. */
export function createHeaderLookup(headers: McpHttpHeaders): HeaderLookup {
  const byName = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = typeof value === "string" ? value : value.join(", ");
    const key = name.toLowerCase();
    const previous = byName.get(key);
    byName.set(key, previous === undefined ? text : `${previous}, ${text}`);
  }
  return (name) => byName.get(name.toLowerCase());
}

function mediaType(value: string): string {
  return (value.split(";")[0] ?? "").trim().toLowerCase();
}

/**
 * True when an `Accept` header lets the server answer `application/json`.
 * Lenient on purpose: a missing or empty header, `*\/*` and `application/*`
 * all pass; only a header that rules JSON out (for example
 * `text/event-stream` alone, or `application/json;q=0`) fails.
 */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === "") return true;
  return accept.split(",").some((range) => {
    const type = mediaType(range);
    if (type !== "application/json" && type !== "application/*" && type !== "*/*") return false;
    const q = /;\s*q\s*=\s*([0-9.]+)/i.exec(range)?.[1];
    return q === undefined || Number(q) > 0;
  });
}

/**
 * True when a `Content-Type` header is absent or names JSON
 * (`application/json`, any parameters). Other types are refused so that a
 * browser cannot post a JSON-RPC message as a "simple" cross-site request.
 */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined || contentType.trim() === "") return true;
  return mediaType(contentType) === "application/json";
}

/**
 * The canonical form of an origin (`scheme://host[:port]`, lower case, no
 * default port, no trailing slash), or undefined when `value` is not one.
 */
export function normalizeOrigin(value: string): string | undefined {
  try {
    const url = new URL(value.trim());
    return url.origin === "null" ? undefined : url.origin;
  } catch {
    return undefined;
  }
}
