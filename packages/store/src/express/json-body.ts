import { AsyncResource } from "node:async_hooks";
import { exceedsDepth, MAX_JSON_DEPTH } from "@svc/schema";
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from "express";
import { StoreError } from "../errors.js";

/**
 * JSON body parsing for the routes that read a body (the entity and
 * function routes; exported for a third party's own routes too). Every content type is
 * parsed as JSON (so `curl -d` works without a header); a body that is not
 * JSON, or nests deeper than `MAX_JSON_DEPTH`, answers 400 `INVALID_JSON` and
 * one over the limit 413 `PAYLOAD_TOO_LARGE`, before any handler runs.
 *
 * The common request (a `Content-Length` within the limit, no
 * `Content-Encoding`, UTF-8 JSON or no content type) is read directly; every
 * other one goes through `express.json`, whose answers the direct path
 * mirrors (strict JSON, a leading BOM dropped, an empty body as `{}`).
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: () => true, strict: true });
  const afterParse = (next: NextFunction, req: Request, error: unknown): void => {
    if (error === undefined || error === null) {
      if (exceedsDepth(req.body)) {
        next(
          new StoreError("INVALID_JSON", {
            message: `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`,
          }),
        );
        return;
      }
      next();
      return;
    }
    const type = (error as { type?: unknown }).type;
    if (type === "entity.too.large") {
      next(
        new StoreError("PAYLOAD_TOO_LARGE", {
          message: `The request body is larger than ${limitBytes} bytes.`,
        }),
      );
      return;
    }
    const status = (error as { status?: unknown }).status;
    if (type === "entity.parse.failed" || (typeof status === "number" && status < 500)) {
      // Aborted uploads, unknown charsets and the like: the body could not
      // be read as JSON, which is what the client needs to know.
      next(new StoreError("INVALID_JSON", { cause: error }));
      return;
    }
    next(error);
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const length = directLength(req, limitBytes);
    if (length === undefined) {
      parse(req, res, (error?: unknown) => afterParse(next, req, error));
      return;
    }
    readJSON(req, length, (error) => afterParse(next, req, error));
  };
}

// The content types whose charset is UTF-8 (or unnamed, which means UTF-8).
const UTF8_JSON_TYPES = new Set([
  "application/json",
  "application/json; charset=utf-8",
  "application/json;charset=utf-8",
]);

const DECIMAL = /^[0-9]{1,15}$/;

/**
 * The body's byte length when the request can be read directly, else
 * undefined (the request goes through `express.json`).
 */
function directLength(req: Request, limitBytes: number): number | undefined {
  const { headers } = req;
  if (headers["content-encoding"] !== undefined || headers["transfer-encoding"] !== undefined) {
    return undefined;
  }
  const type = headers["content-type"];
  if (type !== undefined && !UTF8_JSON_TYPES.has(type.toLowerCase())) return undefined;
  const declared = headers["content-length"];
  if (declared === undefined || !DECIMAL.test(declared)) return undefined;
  const length = Number(declared);
  if (length > limitBytes) return undefined;
  // A body read already (or a connection gone) is left to express.json.
  if (!req.readable || req.socket?.writable !== true) return undefined;
  return length;
}

/** Why a body could not be read: the shape `afterParse` tells apart. */
class BodyReadError extends Error {
  readonly status = 400;
  constructor(
    readonly type: "entity.parse.failed" | "request.aborted" | "request.size.invalid",
    options: { cause?: unknown } = {},
  ) {
    super(type, options);
  }
}

/**
 * Reads `length` bytes of UTF-8 and parses them as strict JSON into
 * `req.body`; `done` runs in the caller's async context.
 */
function readJSON(req: Request, length: number, callback: (error?: unknown) => void): void {
  // As raw-body does: `AsyncResource.bind` costs far more per call.
  const scope = new AsyncResource("svc.jsonBody");
  const done = (error?: unknown): void => {
    scope.runInAsyncScope(callback, null, error);
  };
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const finish = (error?: unknown): void => {
    if (settled) return;
    settled = true;
    req.off("data", onData);
    req.off("end", onEnd);
    req.off("error", onFailure);
    req.off("close", onClose);
    done(error);
  };
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    chunks.push(chunk);
  };
  const onEnd = (): void => {
    if (received !== length) {
      finish(new BodyReadError("request.size.invalid"));
      return;
    }
    const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received);
    let text = bytes.toString("utf8");
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    try {
      req.body = parseStrictJSON(text);
    } catch (error) {
      finish(new BodyReadError("entity.parse.failed", { cause: error }));
      return;
    }
    finish();
  };
  const onFailure = (error?: unknown): void => {
    finish(new BodyReadError("request.aborted", { cause: error }));
  };
  // A client that goes away mid-body: `close` before `end` (Node also
  // emits `aborted`, and `error` when someone listens).
  const onClose = (): void => {
    if (!req.complete) onFailure();
  };
  req.on("data", onData);
  req.on("end", onEnd);
  req.on("error", onFailure);
  req.on("close", onClose);
}

// JSON's whitespace: space, tab, line feed, carriage return.
const FIRST_NON_WHITESPACE = /[^ \t\n\r]/;

/** `express.json`'s strict parse: an empty body is `{}`, else an object or array. */
function parseStrictJSON(text: string): unknown {
  if (text.length === 0) return {};
  const first = text[0] === "{" || text[0] === "[" ? text[0] : FIRST_NON_WHITESPACE.exec(text)?.[0];
  if (first !== "{" && first !== "[") {
    throw new SyntaxError("The body is not a JSON object or array.");
  }
  return JSON.parse(text);
}
