import { isJsonObject } from "./json-rpc.js";

/** The outcome of reading a request body as JSON. */
export type ReadJsonResult =
  | { ok: true; value: unknown }
  | { ok: false; reason: "too-large" | "malformed" | "too-deep" };

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The UTF-8 length of `body` in bytes, computed only as far as needed to
 * compare it with `limit`.
 */
export function exceedsByteLimit(body: string | Uint8Array, limit: number): boolean {
  if (typeof body !== "string") return body.byteLength > limit;
  // A UTF-16 code unit takes 1 to 3 bytes in UTF-8.
  if (body.length > limit) return true;
  if (body.length * 3 <= limit) return false;
  return new TextEncoder().encode(body).byteLength > limit;
}

/**
 * Parse a request body as JSON: bodies over `maxBytes` are refused before
 * parsing, invalid UTF-8 or JSON is `malformed`, and a value nesting deeper
 * than `maxDepth` arrays/objects is `too-deep` (so later recursive work on it
 * cannot exhaust the stack). Own `__proto__` keys are dropped.
 */
export function readJson(
  body: string | Uint8Array | undefined,
  limits: { maxBytes: number; maxDepth: number },
): ReadJsonResult {
  if (body === undefined) return { ok: false, reason: "malformed" };
  if (exceedsByteLimit(body, limits.maxBytes)) return { ok: false, reason: "too-large" };
  let text: string;
  let value: unknown;
  try {
    text = typeof body === "string" ? body : decoder.decode(body);
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: "malformed" };
  }
  return withinDepth(value, limits.maxDepth)
    ? { ok: true, value }
    : { ok: false, reason: "too-deep" };
}

function withinDepth(root: unknown, maxDepth: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, depth } = item;
    if (typeof value !== "object" || value === null) continue;
    if (depth >= maxDepth) return false;
    if (Array.isArray(value)) {
      for (const child of value) stack.push({ value: child, depth: depth + 1 });
    } else if (isJsonObject(value)) {
      if (Object.hasOwn(value, "__proto__")) Reflect.deleteProperty(value, "__proto__");
      for (const child of Object.values(value)) stack.push({ value: child, depth: depth + 1 });
    }
  }
  return true;
}
