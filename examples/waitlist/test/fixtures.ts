import { resolve } from "node:path";
import { parseConfig, type RunningServer, startServer } from "@svc/server";
import type { TestDatabase, TestDatabaseTarget } from "@svc/tooling/databases";

/** This example's manifest, served by every test. */
export const MANIFEST = resolve(import.meta.dirname, "../svc.json");

export const ADMIN_TOKEN = "w".repeat(128);

/** A real svc server for this app on a fresh database of `database`, in dev mode. */
export interface TestApp extends AsyncDisposable {
  readonly server: RunningServer;
  readonly url: string;
}

function databaseEnv(target: TestDatabaseTarget): Record<string, string> {
  return target.dialect === "postgres"
    ? { DATABASE_URL: target.url }
    : { SVC_DB_PATH: target.path };
}

/** Starts the app on an ephemeral loopback port; dispose it to stop it and drop the database. */
export async function startApp(database: TestDatabase): Promise<TestApp> {
  const target = await database.create();
  const server = await startServer(
    parseConfig({
      SVC_PORT: "0",
      SVC_HOST: "127.0.0.1",
      SVC_MANIFEST: MANIFEST,
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      SVC_DEV_MODE: "true",
      SVC_RATE_LIMIT: "off",
      ...databaseEnv(target),
    }),
  );
  return {
    server,
    url: server.url,
    async [Symbol.asyncDispose]() {
      await server.close({ drainSeconds: 0 });
      await database.destroy(target);
    },
  };
}

/** A JSON answer: its status and parsed body. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** One HTTP call with an optional bearer token and JSON body. */
export async function call(
  app: { url: string },
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<Answer> {
  const response = await fetch(`${app.url}${path}`, {
    method,
    headers: {
      ...(options.token !== undefined && { authorization: `Bearer ${options.token}` }),
      ...(options.body !== undefined && { "content-type": "application/json" }),
    },
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? null : (JSON.parse(text) as unknown) };
}

/** Calls a server function and returns its answer. */
export function callFunction(
  app: { url: string },
  token: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Answer> {
  return call(app, "POST", `/api/fn/${name}`, { token, body: args });
}

/** The error code of an error envelope, or undefined. */
export function errorCode(answer: Answer): string | undefined {
  return (answer.body as { error?: { code?: string } } | null)?.error?.code;
}

/** Signs in with a magic code (dev mode hands the code back) and returns the session token. */
export async function signInWithCode(app: { url: string }, email: string): Promise<string> {
  const sent = await call(app, "POST", "/api/auth/magic/send", { body: { email } });
  const code = (sent.body as { dev_code?: string }).dev_code;
  if (code === undefined) throw new Error(`no dev code for ${email}: ${JSON.stringify(sent.body)}`);
  const verified = await call(app, "POST", "/api/auth/magic/verify", { body: { email, code } });
  const token = (verified.body as { token?: string }).token;
  if (token === undefined) throw new Error(`sign-in failed: ${JSON.stringify(verified.body)}`);
  return token;
}
