import type { FunctionRunner } from "@svc/functions";
import type { IRouter, RequestHandler } from "express";
import { type Idempotency, idempotentWriteOf, sendAnswer } from "../idempotency.js";
import { authOf } from "../request-auth.js";

/** The part of the function runner the HTTP layer needs. */
export type FunctionCaller = Pick<FunctionRunner, "run">;

/**
 * `POST /api/fn/:name`: calls a server function with the JSON body as its
 * arguments. With `idempotency`, an `Idempotency-Key` header makes a
 * mutation or action run once per key (a replay answers the recorded
 * response); a query ignores it.
 */
export function registerFunctionRoutes(
  app: IRouter,
  runner: FunctionCaller,
  body: RequestHandler,
  idempotency?: Idempotency,
): void {
  app.post("/api/fn/:name", body, async (req, res) => {
    const name = String(req.params.name);
    const auth = authOf(req);
    const write =
      idempotency === undefined ? undefined : idempotentWriteOf(req, `fn:${name}`, req.body);
    const result = await runner.run(
      name,
      req.body,
      auth,
      idempotency?.runOptions(auth, write) ?? {},
    );
    sendAnswer(res, result, 200);
  });
}
