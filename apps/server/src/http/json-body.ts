import { exceedsDepth, MAX_JSON_DEPTH } from "@svc/schema";
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from "express";
import { ServerError } from "../errors.js";

/**
 * JSON body parsing for the routes that read a body. Every content type is
 * parsed as JSON (so `curl -d` works without a header); a body that is not
 * JSON, or nests deeper than `MAX_JSON_DEPTH`, answers 400 `INVALID_JSON` and
 * one over the limit 413 `PAYLOAD_TOO_LARGE`, before any handler runs.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: () => true, strict: true });
  return (req: Request, res: Response, next: NextFunction) => {
    parse(req, res, (error?: unknown) => {
      if (error === undefined || error === null) {
        if (exceedsDepth(req.body)) {
          next(
            new ServerError(
              "INVALID_JSON",
              `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`,
            ),
          );
          return;
        }
        next();
        return;
      }
      const type = (error as { type?: unknown }).type;
      if (type === "entity.too.large") {
        next(
          new ServerError(
            "PAYLOAD_TOO_LARGE",
            `The request body is larger than ${limitBytes} bytes.`,
          ),
        );
        return;
      }
      const status = (error as { status?: unknown }).status;
      if (type === "entity.parse.failed" || (typeof status === "number" && status < 500)) {
        // Aborted uploads, unknown charsets and the like: the body could not
        // be read as JSON, which is what the client needs to know.
        next(new ServerError("INVALID_JSON", undefined, { cause: error }));
        return;
      }
      next(error);
    });
  };
}
