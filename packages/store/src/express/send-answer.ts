import type { Response } from "express";
import { IdempotentReplay } from "../idempotent-writes.js";

/** The request header a client names its write with. */
export const IDEMPOTENCY_HEADER = "Idempotency-Key";

/** The response header a replayed answer carries. */
export const REPLAYED_HEADER = "Idempotent-Replayed";

/**
 * Sends a write's answer: the recorded one of an `IdempotentReplay` (with
 * its status, marked `Idempotent-Replayed: true`) or the fresh `value` as
 * JSON with `status`.
 */
export function sendAnswer(res: Response, answer: unknown, status: number): void {
  if (answer instanceof IdempotentReplay) {
    res.setHeader(REPLAYED_HEADER, "true");
    res.status(answer.response.status).type("application/json").send(answer.response.body);
    return;
  }
  sendJSON(res, answer ?? null, status);
}

/**
 * `res.status(status).json(value)`, written out for the case every write
 * answer is in: a POST, PATCH or DELETE with no content type, ETag or
 * transfer encoding set yet, an app without JSON or ETag settings, a status
 * with a body. The headers and bytes are the ones express sends; any other
 * case goes through express.
 */
function sendJSON(res: Response, value: unknown, status: number): void {
  const { app, req } = res;
  const body = JSON.stringify(value);
  if (
    typeof body !== "string" ||
    req.method === "GET" ||
    req.method === "HEAD" ||
    status === 204 ||
    status === 205 ||
    status === 304 ||
    res.getHeader("Content-Type") !== undefined ||
    res.getHeader("ETag") !== undefined ||
    res.getHeader("Transfer-Encoding") !== undefined ||
    app.get("json escape") ||
    app.get("json replacer") ||
    app.get("json spaces") ||
    typeof app.get("etag fn") === "function"
  ) {
    res.status(status).json(value);
    return;
  }
  res.status(status);
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", String(Buffer.byteLength(body, "utf8")));
  res.end(body, "utf8");
}
