import { isWireError } from "@svc/schema";
import type { EntityReader } from "@svc/store";
import { FunctionsError, isUpperSnakeCode } from "./errors.js";

// Helpers shared by the function runner and the room logic it builds.

/** `ctx.error`: an application error the client sees with its code and message. */
export function raiseError(code: string, message: string, status = 400): never {
  if (typeof code !== "string" || !isUpperSnakeCode(code)) {
    throw new TypeError(`ctx.error: the code ${JSON.stringify(code)} is not UPPER_SNAKE.`);
  }
  if (!Number.isInteger(status) || status < 400 || status > 599) {
    throw new TypeError(`ctx.error: the status ${String(status)} is not an error status.`);
  }
  throw new FunctionsError(code, { message: String(message), status });
}

/**
 * A reader whose write methods, should JavaScript code call them despite the
 * types, throw `QUERY_CANNOT_WRITE` instead of writing.
 */
export function readOnly(reader: EntityReader): EntityReader {
  const refuse = async (): Promise<never> => {
    throw new FunctionsError("QUERY_CANNOT_WRITE");
  };
  const db = {
    get: reader.get.bind(reader),
    query: reader.query.bind(reader),
    insert: refuse,
    update: refuse,
    delete: refuse,
  };
  return Object.freeze(db);
}

/** Errors a client may see pass through; anything else becomes `FUNCTION_FAILED`. */
export function toClientError(error: unknown, name: string): unknown {
  if (isWireError(error)) return error;
  return new FunctionsError("FUNCTION_FAILED", {
    message: `Function ${name} failed.`,
    cause: error,
  });
}
