import type { AuthContext } from "@svc/store";
import { Router } from "express";
import { authOf } from "../request-auth.js";

/** The part of the function runner the HTTP layer needs. */
export interface FunctionCaller {
  run(name: string, args: unknown, auth: AuthContext): Promise<unknown>;
}

/** `POST /api/fn/:name`: calls a server function with the JSON body as its arguments. */
export function functionRoutes(runner: FunctionCaller): Router {
  const router = Router();
  router.post("/api/fn/:name", async (req, res) => {
    const result = await runner.run(String(req.params.name), req.body, authOf(req));
    res.json(result ?? null);
  });
  return router;
}
