import type { SvcModule, SvcRuntime } from "@svc/store";
import type { IRouter } from "express";
import { createStateStore, type StateStore } from "../state-store.js";
import { oauthStateMigrations } from "../tables.js";
import { createOAuthRouter, type OAuthRouterOptions } from "./oauth-router.js";

/** What `oauthModule` needs beside the runtime: the router's options but its state store. */
export type OAuthModuleOptions = Omit<OAuthRouterOptions, "states">;

/** The OAuth sign-in routes as a module, plus the state store they use. */
export interface OAuthModule extends SvcModule<IRouter> {
  readonly states: StateStore;
}

/**
 * The OAuth routes built from the shared runtime. Handshake states live in
 * the application database (keyed by the runtime's secret), so a handshake
 * survives a restart and finishes on any server.
 */
export function oauthModule(runtime: SvcRuntime, options: OAuthModuleOptions): OAuthModule {
  const states = createStateStore({
    db: runtime.db,
    dialect: runtime.dialect,
    secret: runtime.secret,
    now: runtime.now,
  });
  return {
    name: "@svc/oauth-providers",
    states,
    migrations: [oauthStateMigrations()],
    routes: (app) => app.use(createOAuthRouter({ ...options, states })),
    reset: () => states.clear(),
  };
}
