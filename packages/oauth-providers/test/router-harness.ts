import { createServer } from "node:http";
import { type Auth, createAuth } from "@svc/auth-core";
import { authErrorHandler, createRateLimits, type LimitRule } from "@svc/auth-core/express";
import { parseManifest } from "@svc/schema";
import { createStore, type Store, type StoreDatabase } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import { openTestDatabase, type TestDatabaseTarget } from "@svc/tooling/databases";
import { closeServer, listenOnLoopback } from "@svc/tooling/http-server";
import { userEntity } from "@svc/tooling/manifests";
import express from "express";
import { expect } from "vitest";
import { createOAuthRouter } from "../src/express.js";
import {
  createStateStore,
  type OAuthProvider,
  oauthStateMigrations,
  type StateStore,
} from "../src/index.js";

// A server made of a store, auth-core and the OAuth router, over a test
// database, for the router suites. Booting twice over one database is a
// restart.

export const SECRET = "oauth router test secret, 32 characters or more";
export const TRUSTED = "https://app.example";

export const manifest = parseManifest({
  manifest_version: 1,
  name: "oauth-router-test",
  version: "1",
  entities: [userEntity()],
});

/** One booted server. */
export interface RouterServer {
  readonly url: string;
  readonly store: Store;
  readonly auth: Auth;
  readonly states: StateStore;
  /** Failures the router reported to `onError`. */
  readonly errors: unknown[];
  close(): Promise<void>;
}

export interface BootOptions {
  readonly providers: readonly OAuthProvider[];
  readonly now?: () => number;
  readonly secure?: boolean;
  /** Turns on auth-core's per-address sign-in limiter with this rule. */
  readonly perIp?: LimitRule;
}

/** Opens the database, migrates auth-core's and the state store's tables and listens. */
export async function bootRouter(
  target: TestDatabaseTarget,
  options: BootOptions,
): Promise<RouterServer> {
  const connection: StoreDatabase = openTestDatabase(
    target,
    { openSqlite, openPostgres },
    { max: 4 },
  );
  const store = createStore({ db: connection.db, dialect: connection.dialect, manifest });
  const auth = createAuth({
    store,
    database: { db: connection.db, dialect: connection.dialect },
    secret: SECRET,
    ...(options.now !== undefined && { now: options.now }),
  });
  await store.migrate({ packages: [...auth.migrations, oauthStateMigrations()] });
  const states = createStateStore({
    db: connection.db,
    dialect: connection.dialect,
    secret: SECRET,
    ...(options.now !== undefined && { now: options.now }),
  });
  const errors: unknown[] = [];
  const app = express();
  app.use(
    createOAuthRouter({
      auth,
      providers: options.providers,
      states,
      cookie: { sameSite: "lax", secure: options.secure ?? false },
      trustedOrigins: [TRUSTED],
      onError: (error) => errors.push(error),
      ...(options.perIp !== undefined && {
        rateLimit: createRateLimits({
          database: auth.database,
          perIp: options.perIp,
          ...(options.now !== undefined && { now: options.now }),
        }).perIp,
      }),
    }),
  );
  app.use(authErrorHandler((error) => errors.push(error)));
  const server = createServer(app);
  const url = await listenOnLoopback(server);
  return {
    url,
    store,
    auth,
    states,
    errors,
    async close() {
      await closeServer(server);
      await auth.close();
      await store.close();
    },
  };
}

/** A response's `Set-Cookie` values. */
export function setCookies(response: Response): string[] {
  return response.headers.getSetCookie();
}

/** The `name=value` pair of the cookie named `name` (or `name_…`) from a response, for a following request. */
export function cookiePair(response: Response, name: string): string {
  const found = setCookies(response).find(
    (cookie) => cookie.startsWith(`${name}=`) || cookie.startsWith(`${name}_`),
  );
  expect(found, `Set-Cookie ${name}`).toBeDefined();
  return (found ?? "").split(";")[0] ?? "";
}

/** GET without following redirects. */
export function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { redirect: "manual", headers });
}

export async function userCount(server: RouterServer): Promise<number> {
  return (await server.store.systemReader().query("User", {})).rows.length;
}

/** The error envelope's code of a JSON error response. */
export async function errorCode(response: Response): Promise<string> {
  const body = (await response.json()) as { error?: { code?: string } };
  return body.error?.code ?? "";
}
