import { findCaller } from "@svc/schema/http";
import type { Request, Response } from "express";
import { routeTemplate } from "../http/metrics.js";

/**
 * How the caller of a request proved who it is: `admin`, `session`,
 * `guest`, `api-key` or `jwt`; `anonymous` when it presented nothing,
 * `rejected` when its credentials were refused, `none` where no caller is
 * resolved (pages outside `/api`). Never the token.
 */
export type CallerKind =
  | "admin"
  | "session"
  | "guest"
  | "api-key"
  | "jwt"
  | "anonymous"
  | "rejected"
  | "none";

/** The caller kind of a request (see `CallerKind`). */
export function callerKind(req: Request): CallerKind {
  const auth = findCaller(req);
  if (auth !== undefined) return auth.via ?? "anonymous";
  if (req.headers.authorization !== undefined) return "rejected";
  return req.path.startsWith("/api/") ? "anonymous" : "none";
}

/** The fields of one access log line; nothing a client sent but its method. */
export interface AccessLogEntry {
  readonly requestId: string;
  readonly method: string;
  /** The matched route's template (`/api/fn/:name`), never the path itself; `unmatched` for none. */
  readonly route: string;
  readonly status: number;
  /** From the request's arrival to the end of its response, in ms (three decimals). */
  readonly durationMs: number;
  readonly caller: CallerKind;
  /** Bytes of the response body (its `Content-Length`, else what the socket took, headers included). */
  readonly bytes: number;
  /** Present (true) when the client went away before the response was complete. */
  readonly aborted?: true;
}

/**
 * The access log line of an answered request. The route is the template,
 * so no id, token or query string in a URL reaches the log; headers,
 * cookies and bodies are never read.
 */
export function accessLogEntry(
  req: Request,
  res: Response,
  measured: {
    readonly requestId: string;
    /** From the request's arrival to now, in ms. */
    readonly durationMs: number;
    /** What the socket took while the request ran, headers included. */
    readonly socketBytes: number;
  },
): AccessLogEntry {
  const { requestId, durationMs, socketBytes } = measured;
  const length = Number(res.getHeader("content-length"));
  const entry = {
    requestId,
    method: req.method,
    route: routeTemplate(req),
    status: res.statusCode,
    durationMs: Math.round(durationMs * 1000) / 1000,
    caller: callerKind(req),
    bytes: Number.isInteger(length) ? length : socketBytes,
  };
  return res.writableFinished ? entry : { ...entry, aborted: true };
}
