import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { type BatchOperation, parseBatchBody } from "@svc/store";
import { type CliCommand, type CliEnv, parseCommandLine } from "./cli-command.js";

/** The usage of `svc seed`, printed on `--help` and after a usage error. */
export const SEED_USAGE = `Usage: svc seed [--url <address>] [--force]

Loads the app's sample rows into the running server: each JSON file in
seed/ beside the manifest, {"operations":[{"op":"insert","entity":...,
"data":{...}}, ...]} as POST /api/batch takes it, in name order, with the
admin token. A file whose entities already hold rows is skipped, so running
it again adds nothing; --force loads it anyway.

Reads SVC_MANIFEST (default svc.json), SVC_ADMIN_TOKEN (default: the token
dev mode keeps in .svc/admin-token beside the manifest) and SVC_PORT
(default 4321).

Options:
  --url <address>   the server (default: http://localhost:$SVC_PORT)
  --force           load every file, even into entities that hold rows
`;

/** A usage mistake: printed with the usage, exit code 2. */
export class SeedUsageError extends Error {}

/** A seed that cannot be loaded: printed as `svc: seed: <message>`, exit code 1. */
export class SeedError extends Error {}

/** The most bytes one seed file may have (the server's default body limit). */
const MAX_SEED_FILE_BYTES = 1024 * 1024;

/** The answer of one request: its status and parsed JSON body (undefined when not JSON). */
async function request(
  url: string,
  token: string,
  init: { method: string; body?: string },
): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body !== undefined && { "content-type": "application/json" }),
      },
      ...(init.body !== undefined && { body: init.body }),
    });
  } catch {
    throw new SeedError(
      `no server answers at ${new URL(url).origin}: start the app first (npm run dev), or give its address with --url`,
    );
  }
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: undefined };
  }
}

function errorOf(body: unknown): string {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return typeof error?.code === "string" ? `${error.code}: ${String(error.message)}` : "no answer";
}

async function readAdminToken(env: CliEnv, manifestDir: string): Promise<string> {
  const fromEnv = env.SVC_ADMIN_TOKEN;
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  const file = join(manifestDir, ".svc", "admin-token");
  try {
    return (await readFile(file, "utf8")).trim();
  } catch {
    throw new SeedError(
      `no admin token: SVC_ADMIN_TOKEN is unset and ${file} is missing (dev mode writes it when the server starts)`,
    );
  }
}

/**
 * `svc seed [--url <address>] [--force]`: posts each `seed/*.json` beside
 * the manifest to the running server's `POST /api/batch` with the admin
 * token, skipping a file whose entities already hold rows unless `--force`.
 * Returns the exit code: 0 done (or nothing to load), 1 refused
 * (`SeedError`, printed by the caller), 2 usage (`SeedUsageError`).
 */
export const runSeedCommand: CliCommand = async (argv, io, env) => {
  const { values, positionals } = parseCommandLine(argv.slice(1), {
    url: { type: "string" },
    force: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  });
  if (values.help) {
    io.stdout(SEED_USAGE);
    return 0;
  }
  if (positionals.length > 0) throw new SeedUsageError("svc seed takes no arguments");
  const port = env.SVC_PORT === undefined || env.SVC_PORT === "" ? "4321" : env.SVC_PORT;
  const base = (values.url ?? `http://localhost:${port}`).replace(/\/+$/, "");
  if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol)) {
    throw new SeedUsageError("--url must be an http(s) address such as http://localhost:4321");
  }
  const manifestDir = dirname(resolve(env.SVC_MANIFEST || "svc.json"));
  const seedDir = join(manifestDir, "seed");
  const files = (await readdir(seedDir).catch(() => []))
    .filter((name) => name.endsWith(".json"))
    .sort();
  if (files.length === 0) {
    io.stdout(`svc: seed: nothing to load (no JSON files in ${relative(".", seedDir) || "."})\n`);
    return 0;
  }
  const token = await readAdminToken(env, manifestDir);
  for (const name of files) {
    const path = join(seedDir, name);
    const shown = relative(".", path);
    const text = await readFile(path, "utf8");
    if (Buffer.byteLength(text) > MAX_SEED_FILE_BYTES) {
      throw new SeedError(`${shown} is larger than 1 MiB; split it into several files`);
    }
    // A seed file is a `POST /api/batch` body, checked as the server checks one.
    let operations: BatchOperation[];
    try {
      operations = parseBatchBody(JSON.parse(text));
    } catch {
      throw new SeedError(
        `${shown} is not a batch: {"operations":[{"op":"insert","entity":"<Entity>","data":{...}}]}`,
      );
    }
    const entities = [...new Set(operations.map((operation) => operation.entity))];
    if (!values.force) {
      const filled: string[] = [];
      for (const entity of entities) {
        const answer = await request(
          `${base}/api/entities/${encodeURIComponent(entity)}?limit=1`,
          token,
          { method: "GET" },
        );
        if (answer.status !== 200) {
          throw new SeedError(`${shown}: reading ${entity} failed: ${errorOf(answer.body)}`);
        }
        if (Array.isArray(answer.body) && answer.body.length > 0) filled.push(entity);
      }
      if (filled.length > 0) {
        io.stdout(
          `svc: seed: ${shown}: skipped, ${filled.join(", ")} already ${filled.length === 1 ? "has" : "have"} rows (--force loads it anyway)\n`,
        );
        continue;
      }
    }
    const answer = await request(`${base}/api/batch`, token, { method: "POST", body: text });
    if (answer.status !== 200) {
      throw new SeedError(`${shown}: the server refused it: ${errorOf(answer.body)}`);
    }
    const count = operations.length;
    io.stdout(
      `svc: seed: ${shown}: ${count} row${count === 1 ? "" : "s"} into ${entities.join(", ")}\n`,
    );
  }
  return 0;
};
