import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseConfig } from "../src/config.js";
import { type RunningServer, startServer } from "../src/start-server.js";

/** The default example app, which these tests serve end to end. */
export const TODO_MANIFEST = resolve(import.meta.dirname, "../../../examples/todo/svc.json");

export const ADMIN_TOKEN = "a".repeat(128);

/** Server environment for a test database target. */
export { serverDatabaseEnv as databaseEnv } from "@svc/tooling/databases";

/** A server that closes itself (without draining) at the end of its `await using` scope. */
export type DisposableServer = RunningServer & { [Symbol.asyncDispose](): Promise<void> };

/** Where every in-process test server listens: an ephemeral loopback port. */
export const LOOPBACK_ENV: Readonly<Record<string, string>> = {
  SVC_PORT: "0",
  SVC_HOST: "127.0.0.1",
};

/** Starts the real server on a loopback port with `env` and no other setting. */
export async function startLoopbackServer(
  env: Record<string, string>,
  options: Parameters<typeof startServer>[1] = {},
): Promise<DisposableServer> {
  const server = await startServer(parseConfig({ ...LOOPBACK_ENV, ...env }), options);
  return Object.assign(server, { [Symbol.asyncDispose]: () => server.close({ drainSeconds: 0 }) });
}

/** Starts the real server on a loopback port serving the todo app with the admin token; `env` adds or overrides. */
export function startTestServer(
  env: Record<string, string>,
  options: Parameters<typeof startServer>[1] = {},
): Promise<DisposableServer> {
  return startLoopbackServer(
    {
      SVC_MANIFEST: TODO_MANIFEST,
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      // Warnings and errors only: no access log line per test request.
      SVC_LOG_LEVEL: "warn",
      ...env,
    },
    options,
  );
}

/** A temp directory removed by the returned disposer. */
export function tempDir(): { path: string; [Symbol.dispose](): void } {
  const path = mkdtempSync(join(tmpdir(), "svc-server-test-"));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

/** fetch with the admin token and a JSON body. */
export function adminRequest(
  server: { url: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body !== undefined && { "content-type": "application/json" }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}
