import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseConfig, type RunningServer, startServer } from "@svc/server";
import type { TestDatabase, TestDatabaseTarget } from "@svc/tooling/databases";

// The shop app on the real server, plus the few HTTP calls its tests make.

const MANIFEST = resolve(import.meta.dirname, "../svc.json");
const SEED = resolve(import.meta.dirname, "../seed/products.json");

export const ADMIN_TOKEN = "s".repeat(128);

export type ShopServer = RunningServer & {
  /** Errors the server answered with 500, which no test expects. */
  readonly internalErrors: unknown[];
  [Symbol.asyncDispose](): Promise<void>;
};

/** Starts the shop in dev mode (so magic codes come back as `dev_code`) on `target`. */
export async function startShop(target: TestDatabaseTarget): Promise<ShopServer> {
  const internalErrors: unknown[] = [];
  const server = await startServer(
    parseConfig({
      SVC_PORT: "0",
      SVC_HOST: "127.0.0.1",
      SVC_MANIFEST: MANIFEST,
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      SVC_DEV_MODE: "true",
      SVC_RATE_LIMIT: "off",
      ...(target.dialect === "postgres"
        ? { DATABASE_URL: target.url }
        : { SVC_DB_PATH: target.path }),
    }),
    { onInternalError: (error) => internalErrors.push(error) },
  );
  return Object.assign(server, {
    internalErrors,
    [Symbol.asyncDispose]: () => server.close({ drainSeconds: 0 }),
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

/** Calls a server function as `token`. */
export function call<T = Record<string, unknown>>(
  server: { url: string },
  token: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Answer<T>> {
  return request<T>(server, "POST", `/api/fn/${name}`, { token, body: args });
}

/** Signs `email` in by magic code, the way the front end does in dev mode. */
export async function signIn(server: { url: string }, email: string): Promise<string> {
  const sent = await request(server, "POST", "/api/auth/magic/send", { body: { email } });
  const code = sent.body.dev_code;
  if (typeof code !== "string") throw new Error(`no dev_code: ${JSON.stringify(sent.body)}`);
  const verified = await request(server, "POST", "/api/auth/magic/verify", {
    body: { email, code },
  });
  const token = verified.body.token;
  if (typeof token !== "string") throw new Error(`no token: ${JSON.stringify(verified.body)}`);
  return token;
}

/** Inserts seed/products.json with the admin token, as the README shows; answers the ids by name. */
export async function seedProducts(server: { url: string }): Promise<Record<string, string>> {
  const batch = JSON.parse(readFileSync(SEED, "utf8")) as {
    operations: { data: { name: string } }[];
  };
  const answer = await request<{ ids: string[] }>(server, "POST", "/api/batch", {
    token: ADMIN_TOKEN,
    body: batch,
  });
  if (answer.status !== 200) throw new Error(`seed failed: ${JSON.stringify(answer.body)}`);
  return Object.fromEntries(
    batch.operations.map((operation, index) => [operation.data.name, answer.body.ids[index] ?? ""]),
  );
}

/** A row as the admin token sees it. */
export async function adminGet(
  server: { url: string },
  entity: string,
  id: string,
): Promise<Record<string, unknown>> {
  return (await request(server, "GET", `/api/entities/${entity}/${id}`, { token: ADMIN_TOKEN }))
    .body;
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
