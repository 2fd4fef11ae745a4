import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from "express";
import { BillingError } from "../errors.js";

function parseFailure(error: unknown): BillingError {
  const type = (error as { type?: unknown }).type;
  return type === "entity.too.large"
    ? new BillingError("PAYLOAD_TOO_LARGE", { cause: error })
    : new BillingError("INVALID_JSON", { cause: error });
}

/**
 * A JSON body for the checkout route: any content type is read as JSON (so
 * `curl -d` works); a non-JSON body is 400 `INVALID_JSON`, an oversized one
 * 413 `PAYLOAD_TOO_LARGE`. A body an earlier parser already read is kept.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, type: () => true, strict: false });
  return (req: Request, res: Response, next: NextFunction) => {
    parse(req, res, (error?: unknown) => {
      next(error === undefined || error === null ? undefined : parseFailure(error));
    });
  };
}

/**
 * The webhook's body as the exact bytes received, whatever the content
 * type; an oversized one is 413 `PAYLOAD_TOO_LARGE`. Signatures cover
 * these bytes, so no JSON parser may run before it: a body some earlier
 * middleware already consumed is a wiring mistake, reported as a 500.
 */
export function rawBody(limitBytes: number): RequestHandler {
  const parse = express.raw({ limit: limitBytes, type: () => true });
  return (req: Request, res: Response, next: NextFunction) => {
    parse(req, res, (error?: unknown) => {
      if (error !== undefined && error !== null) {
        next(parseFailure(error));
        return;
      }
      if (!Buffer.isBuffer(req.body)) {
        next(
          new Error(
            "@svc/billing: the webhook body was consumed before the billing router; mount it before any JSON body parser",
          ),
        );
        return;
      }
      next();
    });
  };
}
