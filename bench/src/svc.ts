import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ItemInput, type ItemRow, parseItemRows } from "./items.js";
import { type ServerProcess, startServer } from "./processes.js";

const SEED_BATCH = 250;

/** The bench app: `Item` rows to list, `Touch` rows to insert, `touch` and `ping`. */
export const manifestPath: string = fileURLToPath(new URL("../app/svc.json", import.meta.url));

/** The one-row mutation of `app/` (`functions/touch.mjs`) the Postgres benches write with. */
export const TOUCH_PATH = "/api/fn/touch";

/** `apps/server/dist/main.js`, found through the `@svc/server` dev dependency. */
export function serverMainPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@svc/server/package.json")), "dist", "main.js");
}

/** A fresh admin token: 128 hex characters. */
export function createAdminToken(): string {
  return randomBytes(64).toString("hex");
}

/** What a running svc server needs from the bench. */
export interface SvcServer {
  readonly server: ServerProcess;
  /** The admin token's headers. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The headers of each user credential the auth cases send. */
export type CredentialHeaders = Record<"session" | "api-key" | "jwt", Record<string, string>>;

function bearer(token: unknown, what: string): Record<string, string> {
  if (typeof token !== "string" || token === "") throw new Error(`no ${what} in the answer`);
  return { authorization: `Bearer ${token}`, "content-type": "application/json" };
}

/**
 * Registers a bench user with a password and returns the headers of its
 * `svc_` session, an API key and a JWT minted from the session.
 */
export async function signInBenchUser(svc: SvcServer): Promise<CredentialHeaders> {
  const answer = await call(svc, "POST", "/api/auth/password/register", {
    email: "bench@example.com",
    password: randomBytes(16).toString("hex"),
  });
  const session = bearer((answer as { token?: unknown } | null)?.token, "session token");
  const as = { ...svc, headers: session };
  const key = await call(as, "POST", "/api/auth/api-keys", { name: "bench" });
  const jwt = await call(as, "POST", "/api/auth/jwt");
  return {
    session,
    "api-key": bearer((key as { key?: unknown } | null)?.key, "API key"),
    jwt: bearer((jwt as { token?: unknown } | null)?.token, "JWT"),
  };
}

/**
 * Starts `node apps/server/dist/main.js` on `port`: on `databaseURL`
 * (`DATABASE_URL`) when given, else on a SQLite file under `dir`. Servers
 * meant to act as one deployment get the same `token` and `jwtSecret`.
 */
export async function startSvc(options: {
  readonly port: number;
  readonly dir: string;
  readonly token: string;
  readonly databaseURL?: string;
  readonly jwtSecret?: string;
  readonly name?: string;
  /** Runs the server under this program (valgrind); see `StartOptions.wrapper`. */
  readonly wrapper?: readonly string[];
  readonly readyTimeoutMs?: number;
}): Promise<SvcServer> {
  const database: Record<string, string> =
    options.databaseURL === undefined
      ? { SVC_DB_PATH: join(options.dir, "bench.db") }
      : { DATABASE_URL: options.databaseURL };
  const server = await startServer({
    name: options.name ?? "svc server",
    port: options.port,
    nodeArgs: [serverMainPath()],
    cwd: options.dir,
    env: {
      SVC_PORT: String(options.port),
      SVC_MANIFEST: manifestPath,
      ...database,
      SVC_ADMIN_TOKEN: options.token,
      SVC_DEV_MODE: "false",
      SVC_JWT_SECRET: options.jwtSecret ?? randomBytes(32).toString("hex"),
      SVC_JWT_ISSUER: "svc",
    },
    readyPath: "/health",
    isReady: (body) => body.includes('"ok"'),
    readyTimeoutMs: options.readyTimeoutMs ?? 30_000,
    ...(options.wrapper === undefined ? {} : { wrapper: options.wrapper }),
  });
  return {
    server,
    headers: {
      authorization: `Bearer ${options.token}`,
      "content-type": "application/json",
    },
  };
}

async function call(
  svc: SvcServer,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${svc.server.baseURL}${path}`, {
    method,
    headers: svc.headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok) {
    throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  }
  return JSON.parse(text);
}

/** Inserts the items through `POST /api/batch`, a few hundred per call. */
export async function seedItems(svc: SvcServer, items: readonly ItemInput[]): Promise<void> {
  for (let start = 0; start < items.length; start += SEED_BATCH) {
    const chunk = items.slice(start, start + SEED_BATCH);
    const answer = await call(svc, "POST", "/api/batch", {
      operations: chunk.map((data) => ({ op: "insert", entity: "Item", data })),
    });
    const ids = (answer as { ids?: unknown } | null)?.ids;
    if (!Array.isArray(ids) || ids.length !== chunk.length) {
      throw new Error(`POST /api/batch did not answer ${chunk.length} ids`);
    }
  }
}

/** Reads back the stored items, so baseline C can serve the very same rows. */
export async function fetchItems(svc: SvcServer, count: number): Promise<ItemRow[]> {
  return parseItemRows(await call(svc, "GET", `/api/entities/Item?limit=${count}`), count);
}
