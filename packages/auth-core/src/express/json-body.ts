import { exceedsDepth, MAX_JSON_DEPTH } from "@svc/schema";
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from "express";
import { AuthError } from "../errors.js";

/**
 * JSON bodies for auth routes: any content type is read as JSON (so
 * `curl -d` works); a non-JSON or over-deep body is 400 `INVALID_JSON`, an
 * oversized one 413. A missing or non-object body reads as `{}`, so the
 * handler reports the first missing field instead.
 */
export function authJsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: () => true, strict: false });
  return (req: Request, res: Response, next: NextFunction) => {
    parse(req, res, (error?: unknown) => {
      if (error !== undefined && error !== null) {
        const type = (error as { type?: unknown }).type;
        next(
          type === "entity.too.large"
            ? new AuthError("PAYLOAD_TOO_LARGE", { cause: error })
            : new AuthError("INVALID_JSON", { cause: error }),
        );
        return;
      }
      if (exceedsDepth(req.body)) {
        next(
          new AuthError("INVALID_JSON", {
            message: `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`,
          }),
        );
        return;
      }
      if (typeof req.body !== "object" || req.body === null || Array.isArray(req.body))
        req.body = {};
      next();
    });
  };
}

/** The parsed body as a record of unknown values. */
export function bodyOf(req: Request): Record<string, unknown> {
  return req.body as Record<string, unknown>;
}
