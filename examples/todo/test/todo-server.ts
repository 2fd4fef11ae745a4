import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseConfig, type RunningServer, startServer } from "@svc/server";

// The todo app on the real server in dev mode, on a SQLite file of its own,
// serving the built page in public/.

const MANIFEST = resolve(import.meta.dirname, "../svc.json");
const BUNDLE = resolve(import.meta.dirname, "../public/app.js");

export type TodoServer = RunningServer & {
  /** Errors the server answered with 500, which no test expects. */
  readonly internalErrors: unknown[];
  [Symbol.asyncDispose](): Promise<void>;
};

/** Fails with the command to run when the page was not built (turbo builds it before `test`). */
export function assertPageBuilt(): void {
  if (!existsSync(BUNDLE)) {
    throw new Error(
      "examples/todo/public/app.js is missing: run `pnpm --filter @svc/example-todo build` first.",
    );
  }
}

/** Starts the todo app in dev mode, so sign-in codes come back as `dev_code`. */
export async function startTodo(): Promise<TodoServer> {
  const dir = mkdtempSync(join(tmpdir(), "svc-todo-"));
  const internalErrors: unknown[] = [];
  const server = await startServer(
    parseConfig({
      SVC_PORT: "0",
      SVC_HOST: "127.0.0.1",
      SVC_MANIFEST: MANIFEST,
      SVC_DB_PATH: join(dir, "data.db"),
      SVC_FILES_DIR: join(dir, "files"),
      SVC_ADMIN_TOKEN: "t".repeat(128),
      SVC_DEV_MODE: "true",
      SVC_RATE_LIMIT: "off",
    }),
    { onInternalError: (error) => internalErrors.push(error) },
  );
  return Object.assign(server, {
    internalErrors,
    async [Symbol.asyncDispose]() {
      await server.close({ drainSeconds: 0 });
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
