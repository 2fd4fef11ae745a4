import type { AuthContext } from "@svc/schema";
import { getCaller } from "@svc/schema/http";
import { IDEMPOTENCY_HEADER, jsonBody, sendAnswer } from "@svc/store/express";
import express, { type IRouter, type Request, type Response, type Router } from "express";
import type { FunctionRunner } from "../create-function-runner.js";

/** The part of the function runner the route needs. */
export type FunctionCaller = Pick<FunctionRunner, "run">;

/** What `createFunctionRouter` needs beside the runner. */
export interface FunctionRouterOptions {
  /**
   * The caller of a request. Default `getCaller` of @svc/schema/http: the
   * caller the app's gate recorded (@svc/auth-core's `authenticate`, or a
   * gate of the app's own that calls `setCaller`).
   */
  readonly caller?: (req: Request) => AuthContext;
  /** The largest JSON body accepted, in bytes (413 `PAYLOAD_TOO_LARGE` beyond). Default 1 MiB. */
  readonly bodyLimitBytes?: number;
}

/**
 * Calls function `req.params.name` with the JSON body as its arguments and
 * sends its answer: the result with 200, or the recorded answer of an
 * earlier call with the same `Idempotency-Key` (`Idempotent-Replayed: true`).
 */
async function callFunction(
  runner: FunctionCaller,
  caller: (req: Request) => AuthContext,
  req: Request,
  res: Response,
): Promise<void> {
  const idempotencyKey = req.get(IDEMPOTENCY_HEADER);
  const answer = await runner.run(
    String(req.params.name),
    req.body,
    caller(req),
    idempotencyKey === undefined ? {} : { idempotencyKey },
  );
  sendAnswer(res, answer, 200);
}

/**
 * `POST /api/fn/<name>`: calls a server function with the JSON body as its
 * arguments and answers its JSON result. An `Idempotency-Key` header makes
 * a mutation or an action run once per key (a repeat answers the recorded
 * response); a query ignores it. Errors go to the app's error handler
 * (`errorHandler` of @svc/schema/http) with the runner's codes.
 *
 * Mount it after the app's gate, which records the caller (see `caller`).
 *
 * @example
 * app.use(authenticate({ resolvers })); // @svc/auth-core/express
 * app.use(createFunctionRouter(runner));
 */
export function createFunctionRouter(
  runner: FunctionCaller,
  options: FunctionRouterOptions = {},
): Router {
  const router = express.Router({ caseSensitive: true });
  registerFunctionRoutes(router, runner, options);
  return router;
}

/**
 * The route of `createFunctionRouter`, registered straight onto `router`
 * (an express app or router): on an app it is one layer for express to
 * match, with no mounted router to pass through first.
 *
 * @example
 * registerFunctionRoutes(app, runner, { bodyLimitBytes: 1024 * 1024 });
 */
export function registerFunctionRoutes(
  router: IRouter,
  runner: FunctionCaller,
  options: FunctionRouterOptions = {},
): void {
  const caller = options.caller ?? getCaller;
  router.post("/api/fn/:name", jsonBody(options.bodyLimitBytes ?? 1024 * 1024), (req, res) =>
    callFunction(runner, caller, req, res),
  );
}
