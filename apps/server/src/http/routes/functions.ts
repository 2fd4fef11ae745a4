import type { FunctionRunner } from "@svc/functions";
import type { IRouter, RequestHandler } from "express";
import { authOf } from "../request-auth.js";

/** The part of the function runner the HTTP layer needs. */
export type FunctionCaller = Pick<FunctionRunner, "run">;

/** `POST /api/fn/:name`: calls a server function with the JSON body as its arguments. */
export function registerFunctionRoutes(
  app: IRouter,
  runner: FunctionCaller,
  body: RequestHandler,
): void {
  app.post("/api/fn/:name", body, async (req, res) => {
    const result = await runner.run(String(req.params.name), req.body, authOf(req));
    res.json(result ?? null);
  });
}
