import { serveOnLoopback } from "@svc/tooling/http-server";
import express from "express";
import {
  type AuthRouterOptions,
  authErrorHandler,
  authenticate,
  type BearerResolver,
  createAuthRouter,
  sessionResolver,
} from "../src/express.js";
import type { Auth } from "../src/index.js";

export interface ServeOptions {
  /** Merged over plain-HTTP cookies, no trusted origins and no rate limits. */
  readonly router?: Partial<AuthRouterOptions>;
  /** Default: sessions only. */
  readonly resolvers?: readonly BearerResolver[];
  /** Reads the client address from X-Forwarded-For, as behind a proxy. */
  readonly trustProxy?: boolean;
}

/**
 * Serves `auth`'s router on a loopback port the way an app mounts it
 * (bearer resolution, the router, the error envelope) and resolves with the
 * base URL. `closeFakeServers` closes it.
 */
export async function serveAuthRouter(auth: Auth, options: ServeOptions = {}): Promise<string> {
  const app = express();
  if (options.trustProxy === true) app.set("trust proxy", true);
  app.use(authenticate({ resolvers: options.resolvers ?? [sessionResolver(auth)] }));
  app.use(
    createAuthRouter(auth, {
      cookie: { sameSite: "lax", secure: false },
      trustedOrigins: [],
      rateLimit: false,
      ...options.router,
    }),
  );
  app.use(authErrorHandler(() => {}));
  return serveOnLoopback(app);
}
