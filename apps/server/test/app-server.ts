import type { TestDatabase, TestDatabaseTarget } from "@svc/tooling/databases";
import { beforeAll, beforeEach } from "vitest";
import type { RunningServer } from "../src/start-server.js";
import {
  type AuthTestServer,
  createClock,
  createTestDatabase,
  startAuthServer,
  type TestClock,
} from "./auth-fixtures.js";
import {
  type DisposableServer,
  databaseEnv,
  startTestServer,
  TODO_MANIFEST,
  tempDir,
} from "./fixtures.js";

// The "server on a test database" fixture: before each test of a suite, a
// fresh database, a temp directory with the test's app in it and the real
// server booted on both; after it, all three are gone again.

/** Where a test's app lives: its directory, its manifest and its database. */
export interface AppPlace {
  readonly dir: string;
  readonly manifest: string;
  readonly target: TestDatabaseTarget;
}

/** A server the fixture can close at the end of a test. */
export type ClosableServer = RunningServer & { [Symbol.asyncDispose](): Promise<void> };

/** How long the app lives: one per test (the default), or one for the whole suite. */
export type AppScope = "test" | "suite";

/** The hook that opens what lives for `scope`; both close it with the cleanup they are given. */
function openHook(scope: AppScope = "test"): typeof beforeAll {
  return scope === "suite" ? beforeAll : beforeEach;
}

export interface AppServerOptions<S extends ClosableServer> {
  /** Per test by default. */
  readonly scope?: AppScope;
  /** Writes the app into `dir` and returns its manifest's path; the todo app when left out. */
  readonly writeApp?: (dir: string) => string;
  /** Server environment beyond the database and SVC_MANIFEST; a function may read the app's place. */
  readonly env?: Record<string, string> | ((place: AppPlace) => Record<string, string>);
  /**
   * Boots the server on `place` with `env` (the options' and a restart's).
   * By default `startAuthServer` on the target and the manifest, with a
   * frozen clock.
   */
  readonly start?: (place: AppPlace, env: Record<string, string>) => Promise<S>;
}

/** The current test's app and the server running it. */
export interface AppServer<S extends ClosableServer> extends AppPlace {
  readonly server: S;
  /** Closes the server and boots another on the same app and database, with `env` added. */
  restart(env?: Record<string, string>): Promise<S>;
  /** Closes the server before the test ends (a test of shutdown); the fixture then leaves it be. */
  closeServer(): Promise<void>;
}

/**
 * Boots `startAuthServer` on the place's database and manifest (by default
 * with a clock of its own): the fixture's server, or another on a test's app.
 */
export function startAppServer(
  place: AppPlace,
  env: Record<string, string>,
  clock: TestClock = createClock(),
): Promise<AuthTestServer> {
  return startAuthServer(
    { ...databaseEnv(place.target), SVC_MANIFEST: place.manifest, ...env },
    clock,
  );
}

/** Boots `startTestServer` (its own real clock; internal errors go to the log) on the place's database and manifest. */
export function startTestServerOn(
  place: AppPlace,
  env: Record<string, string>,
): Promise<DisposableServer> {
  return startTestServer({ ...databaseEnv(place.target), SVC_MANIFEST: place.manifest, ...env });
}

/**
 * Boots `startAuthServer` (the todo app unless `env` names another) on a
 * fresh database of its own; closing the server also drops the database.
 */
export async function startOnFreshDatabase(
  database: TestDatabase,
  env: Record<string, string>,
  clock: TestClock = createClock(),
): Promise<AuthTestServer> {
  const db = await createTestDatabase(database);
  try {
    const server = await startAuthServer({ ...databaseEnv(db.target), ...env }, clock);
    return Object.assign(server, {
      async [Symbol.asyncDispose]() {
        await server.close({ drainSeconds: 0 });
        await db[Symbol.asyncDispose]();
      },
    });
  } catch (error) {
    await db[Symbol.asyncDispose]();
    throw error;
  }
}

/**
 * Registers a `beforeEach` (with scope "suite", a `beforeAll`) in the
 * calling suite that gives each test a fresh database and a temp directory
 * with the app `writeApp` writes (by default none: the todo app is
 * served); returns a handle to the current one.
 * Both are gone after the test (or the suite).
 */
export function appPerTest(
  database: TestDatabase,
  writeApp: (dir: string) => string = () => TODO_MANIFEST,
  scope?: AppScope,
): AppPlace {
  let current: AppPlace | undefined;
  const opened = (): AppPlace => {
    if (current === undefined) throw new Error("the test app exists only inside a test");
    return current;
  };
  openHook(scope)(async () => {
    const db = await createTestDatabase(database);
    const dir = tempDir();
    const remove = async (): Promise<void> => {
      current = undefined;
      dir[Symbol.dispose]();
      await db[Symbol.asyncDispose]();
    };
    try {
      current = { dir: dir.path, manifest: writeApp(dir.path), target: db.target };
    } catch (error) {
      await remove();
      throw error;
    }
    return remove;
  });
  return {
    get dir() {
      return opened().dir;
    },
    get manifest() {
      return opened().manifest;
    },
    get target() {
      return opened().target;
    },
  };
}

/**
 * The app of {@link appPerTest} with the server booted on it before each
 * test (or once, with scope "suite"). The server closes after the suite's
 * own `afterEach` (`afterAll`) hooks, so they may still use it.
 *
 * @example
 * const app = appServerPerTest(database, { writeApp, env: { SVC_RATE_LIMIT: "off" } });
 * it("answers", async () => expect((await fetch(app.server.url)).status).toBe(200));
 */
export function appServerPerTest<S extends ClosableServer = AuthTestServer>(
  database: TestDatabase,
  options: AppServerOptions<S>,
): AppServer<S> {
  const start = options.start ?? (startAppServer as unknown as NonNullable<typeof options.start>);
  const place = appPerTest(database, options.writeApp, options.scope);
  let current: { server: S; closed?: true } | undefined;
  const running = (): { server: S; closed?: true } => {
    if (current === undefined) throw new Error("the app server runs only inside a test");
    return current;
  };
  const closeOnce = async (server: { server: S; closed?: true }): Promise<void> => {
    if (server.closed === true) return;
    server.closed = true;
    await server.server[Symbol.asyncDispose]();
  };
  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    ...(typeof options.env === "function" ? options.env(place) : options.env),
    ...extra,
  });

  openHook(options.scope)(async () => {
    current = { server: await start(place, env()) };
    return async () => {
      const closing = current;
      current = undefined;
      if (closing !== undefined) await closeOnce(closing);
    };
  });

  return {
    get dir() {
      return place.dir;
    },
    get manifest() {
      return place.manifest;
    },
    get target() {
      return place.target;
    },
    get server() {
      return running().server;
    },
    async restart(extra) {
      await closeOnce(running());
      current = { server: await start(place, env(extra)) };
      return current.server;
    },
    closeServer: () => closeOnce(running()),
  };
}
