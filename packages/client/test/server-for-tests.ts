import {
  serverDatabaseEnv,
  type TestDatabase,
  type TestDatabaseTarget,
} from "@svc/tooling/databases";
import { afterAll, beforeAll } from "vitest";
import { startTestServer, type TestServer } from "./server.js";

/** An app written for the server to serve, removed by `dispose`. */
export interface WrittenApp {
  readonly manifest: string;
  dispose(): void;
}

export interface TestServerSetup {
  /** Writes the app to serve instead of the todo example. */
  readonly app?: () => WrittenApp;
  /** Serves from a fresh database of this kind instead of in-memory SQLite. */
  readonly database?: TestDatabase;
  /** More server settings, over the rest. */
  readonly env?: Record<string, string>;
}

/**
 * Starts the real server once for the enclosing block's tests and, after
 * them, stops it and removes its database and app. The returned function
 * gives the running server inside a test.
 */
export function serverForTests(setup: TestServerSetup = {}): () => TestServer {
  let server: TestServer | undefined;
  let target: TestDatabaseTarget | undefined;
  let app: WrittenApp | undefined;
  beforeAll(async () => {
    app = setup.app?.();
    target = await setup.database?.create();
    server = await startTestServer({
      ...(target !== undefined && serverDatabaseEnv(target)),
      ...(app !== undefined && { SVC_MANIFEST: app.manifest }),
      ...setup.env,
    });
  });
  afterAll(async () => {
    await server?.[Symbol.asyncDispose]();
    if (target !== undefined) await setup.database?.destroy(target);
    app?.dispose();
  });
  return () => {
    if (server === undefined) throw new Error("the test server is not running yet");
    return server;
  };
}
