import { FilesError } from "./errors.js";

// type "/" subtype with RFC 7230 token characters, optional parameters.
const MIME =
  /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;\s*[a-z0-9!#$&^_.+-]+=("[^"\r\n]*"|[a-z0-9!#$&^_.+-]+))*$/i;

/**
 * Checks a declared content type: a valid MIME type, and one of `allowed`
 * when given (entries match exactly or as `type/*`). Returns it lower-cased.
 */
export function checkContentType(value: unknown, allowed: readonly string[] | undefined): string {
  if (typeof value !== "string" || value.length > 255 || !MIME.test(value)) {
    throw new FilesError("UNSUPPORTED_CONTENT_TYPE");
  }
  const normalized = value.toLowerCase();
  if (allowed === undefined || allowed.length === 0) return normalized;
  const essence = normalized.split(";")[0]?.trim() ?? "";
  const major = essence.split("/")[0];
  const ok = allowed.some((entry) => {
    const rule = entry.toLowerCase();
    return rule === essence || rule === `${major}/*`;
  });
  if (!ok) throw new FilesError("UNSUPPORTED_CONTENT_TYPE");
  return normalized;
}
