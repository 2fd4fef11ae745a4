import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { type BuildEdgeResult, buildEdgeApp } from "../src/build/build-edge.js";
import { splitStatements } from "../src/build/migrations.js";
import type { D1Database } from "../src/d1/d1-types.js";

export const ADMIN_TOKEN = "edge-test-admin-token-0123456789abcdef0123456789";
export const JWT_SECRET = "edge-test-jwt-secret-0123456789abcdef";

/** An email the Worker sent through the webhook provider. */
export interface SentEmail {
  readonly to: string;
  readonly subject: string;
  readonly body: string;
}

/** A Worker directory running in workerd (miniflare) on a local D1 database. */
export interface ServedWorker extends AsyncDisposable {
  readonly d1: D1Database;
  readonly emails: SentEmail[];
  /** `fetch` against the Worker, `path` relative to its origin. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** POSTs JSON with an optional bearer and answers `{status, body}`. */
  call(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown },
    // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely.
  ): Promise<{ status: number; body: any }>;
}

/** A built app running in workerd (miniflare) on a local D1 database. */
export interface EdgeWorker extends ServedWorker {
  readonly build: BuildEdgeResult;
}

/** The path of a fixture app's manifest. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}/svc.json`, import.meta.url));
}

/** The todo example's manifest (the app the server's docs use). */
export const TODO_MANIFEST = fileURLToPath(
  new URL("../../../examples/todo/svc.json", import.meta.url),
);

/**
 * Builds the app at `manifestPath` into a temp directory with `svc-edge
 * build`'s code, applies its D1 migrations and runs the Worker in workerd.
 * Email goes to the webhook provider, which the test's outbound handler
 * records.
 */
export async function startEdgeWorker(
  manifestPath: string,
  options: { bindings?: Record<string, string> } = {},
): Promise<EdgeWorker> {
  const outDir = await mkdtemp(join(tmpdir(), "svc-edge-"));
  const build = await buildEdgeApp({ manifestPath, outDir, minify: false });
  const served = await serveEdgeWorker(outDir, options);
  return {
    ...served,
    build,
    async [Symbol.asyncDispose]() {
      await served[Symbol.asyncDispose]();
      await rm(outDir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs a Worker directory that a build wrote (`worker.js`, `migrations/`)
 * in workerd on a fresh local D1 database with every migration applied, as
 * `wrangler d1 migrations apply --local` would. The directory is left as is.
 */
export async function serveEdgeWorker(
  outDir: string,
  options: { bindings?: Record<string, string> } = {},
): Promise<ServedWorker> {
  const emails: SentEmail[] = [];
  const mf = new Miniflare({
    modules: true,
    scriptPath: join(outDir, "worker.js"),
    modulesRoot: outDir,
    compatibilityDate: "2025-09-15",
    compatibilityFlags: ["nodejs_compat", "enable_nodejs_global_timers"],
    d1Databases: ["DB"],
    bindings: {
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      SVC_JWT_SECRET: JWT_SECRET,
      SVC_JWT_ISSUER: "svc",
      SVC_EMAIL_PROVIDER: "webhook",
      SVC_EMAIL_ENDPOINT: "http://mail.test/send",
      SVC_EMAIL_FROM: "auth@example.com",
      ...options.bindings,
    },
    outboundService: async (request: { url: string; json(): Promise<unknown> }) => {
      if (new URL(request.url).host === "mail.test") {
        emails.push((await request.json()) as SentEmail);
        return new Response("{}", { status: 200 });
      }
      return new Response("no network in tests", { status: 502 });
    },
  });
  const d1 = (await mf.getD1Database("DB")) as unknown as D1Database;
  const migrations = join(outDir, "migrations");
  for (const file of (await readdir(migrations)).filter((name) => name.endsWith(".sql")).sort()) {
    const statements = splitStatements(await readFile(join(migrations, file), "utf8"));
    await d1.batch(statements.map((statement) => d1.prepare(statement)));
  }
  const fetchWorker = async (path: string, init?: RequestInit): Promise<Response> =>
    (await mf.dispatchFetch(`http://edge.test${path}`, init as never)) as unknown as Response;
  return {
    d1,
    emails,
    fetch: fetchWorker,
    async call(method, path, { token, body } = {}) {
      const response = await fetchWorker(path, {
        method,
        headers: {
          ...(body !== undefined && { "content-type": "application/json" }),
          ...(token !== undefined && { authorization: `Bearer ${token}` }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text === "" ? null : JSON.parse(text) };
    },
    async [Symbol.asyncDispose]() {
      await mf.dispose();
    },
  };
}
