import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseConfig, type RunningServer, startServer } from "@svc/server";
import type { TestDatabase, TestDatabaseTarget } from "@svc/tooling/databases";

// The chat app on the real server, plus the few HTTP calls its tests make.

const MANIFEST = resolve(import.meta.dirname, "../svc.json");
const BUNDLE = resolve(import.meta.dirname, "../public/app.js");

export const ADMIN_TOKEN = "c".repeat(128);

export type ChatServer = RunningServer & {
  /** Errors the server answered with 500, which no test expects. */
  readonly internalErrors: unknown[];
  [Symbol.asyncDispose](): Promise<void>;
};

/** Fails with the command to run when the page was not built (turbo builds it before `test`). */
export function assertPageBuilt(): void {
  if (!existsSync(BUNDLE)) {
    throw new Error(
      "examples/chat/public/app.js is missing: run `pnpm --filter @svc/example-chat build` first.",
    );
  }
}

/** Starts the chat in dev mode (so magic codes come back as `dev_code`) on `target`. */
export async function startChat(target: TestDatabaseTarget): Promise<ChatServer> {
  const files = mkdtempSync(join(tmpdir(), "svc-chat-files-"));
  const internalErrors: unknown[] = [];
  const server = await startServer(
    parseConfig({
      SVC_PORT: "0",
      SVC_HOST: "127.0.0.1",
      SVC_MANIFEST: MANIFEST,
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      SVC_DEV_MODE: "true",
      SVC_RATE_LIMIT: "off",
      SVC_FILES_DIR: files,
      ...(target.dialect === "postgres"
        ? { DATABASE_URL: target.url }
        : { SVC_DB_PATH: target.path }),
    }),
    { onInternalError: (error) => internalErrors.push(error) },
  );
  return Object.assign(server, {
    internalErrors,
    async [Symbol.asyncDispose]() {
      await server.close({ drainSeconds: 0 });
      rmSync(files, { recursive: true, force: true });
    },
  });
}

/** An isolated database, dropped by its disposer. */
export async function createDatabase(
  database: TestDatabase,
): Promise<{ target: TestDatabaseTarget; [Symbol.asyncDispose](): Promise<void> }> {
  const target = await database.create();
  return { target, [Symbol.asyncDispose]: () => database.destroy(target) };
}

export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/** A JSON request; `token` goes in as the bearer. */
export async function request<T = Record<string, unknown>>(
  server: { url: string },
  method: string,
  path: string,
  options: { token?: string | undefined; body?: unknown } = {},
): Promise<Answer<T>> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(options.token !== undefined && { authorization: `Bearer ${options.token}` }),
      ...(options.body !== undefined && { "content-type": "application/json" }),
    },
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** Calls a server function as `token` (anonymous when undefined). */
export function call<T = Record<string, unknown>>(
  server: { url: string },
  token: string | undefined,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Answer<T>> {
  return request<T>(server, "POST", `/api/fn/${name}`, { token, body: args });
}

/** A signed-in user: their session token and user id. */
export interface ChatUser {
  readonly token: string;
  readonly userId: string;
}

/** Signs `email` in by magic code, the way the front end does in dev mode. */
export async function signIn(server: { url: string }, email: string): Promise<ChatUser> {
  const sent = await request(server, "POST", "/api/auth/magic/send", { body: { email } });
  const code = sent.body.dev_code;
  if (typeof code !== "string") throw new Error(`no dev_code: ${JSON.stringify(sent.body)}`);
  const verified = await request(server, "POST", "/api/auth/magic/verify", {
    body: { email, code },
  });
  const { token, user_id: userId } = verified.body;
  if (typeof token !== "string" || typeof userId !== "string") {
    throw new Error(`no session: ${JSON.stringify(verified.body)}`);
  }
  return { token, userId };
}

/** Every row of `entity` as the admin token sees it (at most 1000). */
export async function adminList(
  server: { url: string },
  entity: string,
): Promise<Record<string, unknown>[]> {
  return (
    await request<Record<string, unknown>[]>(server, "GET", `/api/entities/${entity}?limit=1000`, {
      token: ADMIN_TOKEN,
    })
  ).body;
}
