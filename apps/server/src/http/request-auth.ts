import type { AuthContext } from "@svc/store";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { type BearerResolver, resolveAuthorization } from "../auth/resolve-bearer.js";
import { ServerError } from "../errors.js";

const AUTH = Symbol("svc.auth");

type RequestWithAuth = Request & { [AUTH]?: AuthContext };

/** Resolves the caller once per request, before any /api route runs. */
export function authenticate(resolvers: readonly BearerResolver[]): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    (req as RequestWithAuth)[AUTH] = await resolveAuthorization(
      req.headers.authorization,
      resolvers,
    );
    next();
  };
}

/** The caller `authenticate` resolved for this request. */
export function authOf(req: Request): AuthContext {
  const auth = (req as RequestWithAuth)[AUTH];
  if (auth === undefined) throw new Error("authenticate() must run before this route");
  return auth;
}

/** Lets only the admin token through. */
export function requireAdmin(req: Request, _res: Response, next: NextFunction): void {
  if (!authOf(req).isAdmin) {
    next(
      authOf(req).userId === null && req.headers.authorization === undefined
        ? new ServerError("INVALID_TOKEN", "This endpoint needs the admin token as a bearer.")
        : new ServerError("ADMIN_REQUIRED"),
    );
    return;
  }
  next();
}
