import type { NextFunction, Request, Response } from "express";
import { ServerError } from "../errors.js";

/** `http://host:port` followed by the path and query, kept as sent (only the two web schemes). */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)(.*)$/i;

/** The default port of a scheme, which an authority may or may not spell out. */
function withoutDefaultPort(authority: string, scheme: "http" | "https"): string {
  const lower = authority.toLowerCase();
  const port = scheme === "https" ? ":443" : ":80";
  return lower.endsWith(port) ? lower.slice(0, -port.length) : lower;
}

/**
 * Brings every request target to origin form (`/path?query`) before anything
 * decides on it, so the `/api` gate, the CSRF check, the metrics and
 * express's router all read one path. Mount it first.
 *
 * - Origin form passes untouched. express matches it literally, so
 *   `/api/../x`, `//api/x`, `%2e%2e` and backslashes reach no route (404).
 * - Absolute form (`http://host/api/...`), which a server must accept
 *   (RFC 9112 §3.2.2), is read as its path and query, kept as sent (no dot
 *   segments resolved), when its authority is the `Host` header's (or there
 *   is no `Host`). An authority naming another host, or carrying user info,
 *   is refused: svc does not pick one of two hosts for a request.
 * - Anything else (`*`, other schemes) is 400 `INVALID_REQUEST_TARGET`.
 */
export function normalizeRequestTarget(req: Request, _res: Response, next: NextFunction): void {
  const target = req.url;
  // The hot path: a target starting with "/" is origin form.
  if (target.charCodeAt(0) === 0x2f) {
    next();
    return;
  }
  const match = ABSOLUTE_FORM.exec(target);
  const authority = match?.[1] ?? "";
  if (match === null || authority === "" || authority.includes("@")) {
    next(new ServerError("INVALID_REQUEST_TARGET"));
    return;
  }
  const scheme = target.slice(0, 5).toLowerCase() === "https" ? "https" : "http";
  const host = req.headers.host;
  if (
    host !== undefined &&
    withoutDefaultPort(host, scheme) !== withoutDefaultPort(authority, scheme)
  ) {
    next(
      new ServerError(
        "INVALID_REQUEST_TARGET",
        "An absolute request target must name the host of the Host header.",
      ),
    );
    return;
  }
  const rest = match[2] ?? "";
  const path = rest.startsWith("/") ? rest : `/${rest}`;
  req.url = path;
  // express set it from the absolute form; pages that link back read it.
  req.originalUrl = path;
  if (host === undefined) req.headers.host = authority;
  next();
}
