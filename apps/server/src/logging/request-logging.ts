import { context as otelContext } from "@opentelemetry/api";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { type AccessLogEntry, accessLogEntry } from "./access-log.js";
import { endRequestSpan, startRequestSpan } from "./http-span.js";
import type { ServerLogger } from "./logger.js";
import { runWithLogContext } from "./request-context.js";
import { incomingRequestId, newRequestId } from "./request-id.js";

/** Options of `requestLogging`. */
export interface RequestLoggingOptions {
  readonly logger: ServerLogger;
  /** One `info` line per request (`SVC_ACCESS_LOG`). Default true. */
  readonly accessLog?: boolean;
  /** Whether a proxy in front is trusted (`SVC_TRUST_PROXY`): only then is its `X-Request-Id` kept. */
  readonly trustProxy?: boolean;
  /** Also receives each access log entry, whatever `accessLog` says (the studio's request log). */
  readonly onEntry?: (entry: AccessLogEntry) => void;
}

/**
 * The first middleware: gives the request its id (a trusted proxy's sane
 * `X-Request-Id`, else a new one) and answers it as `X-Request-Id`; runs
 * the rest of the request in its log context (every line logged meanwhile
 * carries `requestId`) and its OpenTelemetry server span; when the
 * response ends, writes the access log line and ends the span.
 */
export function requestLogging(options: RequestLoggingOptions): RequestHandler {
  const { logger } = options;
  const accessLog = options.accessLog !== false;
  const trustProxy = options.trustProxy === true;
  const { onEntry } = options;
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    const requestId =
      (trustProxy ? incomingRequestId(req.headers["x-request-id"]) : undefined) ?? newRequestId();
    res.setHeader("X-Request-Id", requestId);
    const logContext = { requestId };
    const { span, context } = startRequestSpan(req, requestId);
    // Nothing to do at the end when neither the access log, its hook nor a tracer wants it.
    if (accessLog || onEntry !== undefined || span.isRecording()) {
      const socketBytes = req.socket.bytesWritten;
      // `close` comes once, after `finish` or when the client went away first.
      res.once("close", () => {
        const entry = accessLogEntry(req, res, {
          requestId,
          durationMs: performance.now() - started,
          socketBytes: req.socket.bytesWritten - socketBytes,
        });
        endRequestSpan(span, { ...entry, aborted: entry.aborted === true });
        if (accessLog) logger.info(entry, `${entry.method} ${entry.route} ${entry.status}`);
        onEntry?.(entry);
      });
    }
    runWithLogContext(logContext, () =>
      context === undefined ? next() : otelContext.with(context, next),
    );
  };
}
