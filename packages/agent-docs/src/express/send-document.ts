import { createHash } from "node:crypto";
import type { Request, Response } from "express";

/** The caching policy of every agent API document. */
export const DOCUMENT_CACHE_CONTROL = "public, max-age=300";

/** Content types the agent API answers with. */
export const JSON_TYPE = "application/json; charset=utf-8";
/** The content type of pages and the authoring guide. */
export const MARKDOWN_TYPE = "text/markdown; charset=utf-8";

/** A strong entity tag of `body`: a quoted, truncated SHA-256 in base64url. */
export function strongETag(body: string): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
}

/**
 * True when an `If-None-Match` header value matches `etag` (RFC 9110
 * 13.1.2: `*`, or any listed tag by weak comparison).
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  const opaque = etag.replace(/^W\//, "");
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => tag.replace(/^W\//, "") === opaque);
}

/**
 * Sends a cacheable document: a strong `ETag` and `Cache-Control`, and 304
 * with no body when the request's `If-None-Match` matches. Unlike express's
 * `req.fresh`, a request's `Cache-Control: no-cache` (which fetch adds to
 * every conditional request) does not prevent the 304: it addresses caches,
 * and this is the origin.
 */
export function sendDocument(req: Request, res: Response, body: string, contentType: string): void {
  const etag = strongETag(body);
  res.setHeader("ETag", etag);
  res.setHeader("Cache-Control", DOCUMENT_CACHE_CONTROL);
  if (ifNoneMatchMatches(req.get("if-none-match"), etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).setHeader("Content-Type", contentType);
  res.send(body);
}

/** Sends `value` as a cacheable JSON document. */
export function sendJSONDocument(req: Request, res: Response, value: unknown): void {
  sendDocument(req, res, JSON.stringify(value), JSON_TYPE);
}
