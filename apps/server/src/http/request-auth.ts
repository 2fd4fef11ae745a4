import type { AuthContext } from "@svc/store";
import cors from "cors";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { type BearerResolver, resolveAuthorization } from "../auth/resolve-bearer.js";
import { ServerError } from "../errors.js";

const AUTH = Symbol("svc.auth");

type RequestWithAuth = Request & { [AUTH]?: AuthContext };

/**
 * The gate in front of every /api route, as one middleware: CORS (only
 * when the request carries an `Origin`; preflights end here), then the
 * caller, resolved once per request.
 */
export function apiGate(options: {
  resolvers: readonly BearerResolver[];
  /** `true` reflects any origin (dev mode); otherwise the allowed origins. */
  corsOrigins: true | readonly string[];
}): RequestHandler {
  const { resolvers } = options;
  const corsHandler = cors({
    origin: options.corsOrigins === true ? true : [...options.corsOrigins],
    credentials: true,
    maxAge: 600,
    // Browser clients page through entity lists with this header.
    exposedHeaders: ["X-Next-Cursor"],
  });
  const authenticate = async (req: Request, next: NextFunction): Promise<void> => {
    try {
      (req as RequestWithAuth)[AUTH] = await resolveAuthorization(
        req.headers.authorization,
        resolvers,
      );
    } catch (error) {
      next(error);
      return;
    }
    next();
  };
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.url.startsWith("/api/")) {
      next();
      return;
    }
    if (req.headers.origin === undefined) {
      void authenticate(req, next);
      return;
    }
    corsHandler(req, res, (error?: unknown) => {
      if (error) next(error);
      else void authenticate(req, next);
    });
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
