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

/** Starts the real server on an ephemeral loopback port. */
export async function startTestServer(
  env: Record<string, string>,
): Promise<RunningServer & { [Symbol.asyncDispose](): Promise<void> }> {
  const server = await startServer(
    parseConfig({
      SVC_PORT: "0",
      SVC_HOST: "127.0.0.1",
      SVC_MANIFEST: TODO_MANIFEST,
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      // Warnings and errors only: no access log line per test request.
      SVC_LOG_LEVEL: "warn",
      ...env,
    }),
  );
  return Object.assign(server, { [Symbol.asyncDispose]: () => server.close({ drainSeconds: 0 }) });
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
