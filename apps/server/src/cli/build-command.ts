import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { loadManifestFile } from "../manifest-file.js";
import { type CliCommand, parseCommandLine } from "./cli-command.js";

/** The usage of `svc build`, printed on `--help` and after a usage error. */
export const BUILD_USAGE = `Usage: svc build --target edge [options]

Builds the app for another runtime. The one target today is \`edge\`
(experimental): a Cloudflare Worker on D1, written to one directory:
  worker.js        the manifest, the function files and svc's docs in one module
  migrations/      D1 migrations (a new file when the schema changed)
  wrangler.jsonc   written once; later builds keep your edits

Options:
  --target <name>      edge
  --manifest <path>    the manifest (default: $SVC_MANIFEST or svc.json)
  --out <dir>          the Worker directory (default: edge/ beside the manifest)
  --name <worker>      the Worker's name in a new wrangler.jsonc (default: the app's name)
  --no-docs            leave svc's docs out (the agent API and MCP then have none)

Then, in the Worker directory: npx wrangler dev (local, on a local D1), or
  npx wrangler d1 create <name>  (put its id in wrangler.jsonc)
  npx wrangler d1 migrations apply <name> --remote
  npx wrangler secret put SVC_ADMIN_TOKEN
  npx wrangler deploy
`;

/** The targets `svc build` knows. */
export const BUILD_TARGETS = ["edge"] as const;

/**
 * Why `svc build` stopped, by stable code: `UNKNOWN_BUILD_TARGET` (no or an
 * unknown `--target`; exit 2 with the usage), `MANIFEST_NOT_FOUND` (exit 1),
 * `FUNCTION_NOT_BUNDLED` (a function file that cannot go into the Worker: a
 * bad name, a name defined twice, or an import or syntax error; exit 1).
 */
export type BuildErrorCode = "UNKNOWN_BUILD_TARGET" | "MANIFEST_NOT_FOUND" | "FUNCTION_NOT_BUNDLED";

/** A build that cannot be done; printed as `svc: build: <code>: <message>`. */
export class BuildError extends Error {
  override readonly name = "BuildError";
  constructor(
    readonly code: BuildErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** What esbuild throws: its messages, each with the file it is about. */
interface BundleFailure {
  readonly errors: readonly {
    text: string;
    location?: { file: string; line: number; column: number } | null;
  }[];
}

function isBundleFailure(error: unknown): error is BundleFailure {
  return (
    typeof error === "object" &&
    error !== null &&
    Array.isArray((error as { errors?: unknown }).errors) &&
    (error as BundleFailure).errors.length > 0
  );
}

function shown(path: string): string {
  const shorter = relative(process.cwd(), path);
  return shorter === "" || shorter.startsWith("..") ? path : shorter;
}

/**
 * `svc build --target edge`: bundles the app of the manifest into a Worker
 * directory with @svc/edge's `buildEdgeApp`. @svc/edge (and esbuild) load
 * only here, so the other commands and the server never pay for them.
 * Returns the exit code; a usage mistake is a `TypeError` from parseArgs or
 * a `BuildError` with code `UNKNOWN_BUILD_TARGET`.
 */
export const runBuildCommand: CliCommand = async (argv, io, env) => {
  const { values, positionals } = parseCommandLine(argv, {
    target: { type: "string" },
    manifest: { type: "string" },
    out: { type: "string" },
    name: { type: "string" },
    "no-docs": { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  });
  if (values.help) {
    io.stdout(BUILD_USAGE);
    return 0;
  }
  if (positionals.length > 1) {
    throw new BuildError("UNKNOWN_BUILD_TARGET", `unexpected argument ${positionals[1]}`);
  }
  const target = values.target;
  if (target === undefined || !(BUILD_TARGETS as readonly string[]).includes(target)) {
    throw new BuildError(
      "UNKNOWN_BUILD_TARGET",
      target === undefined
        ? `--target is required (${BUILD_TARGETS.join(", ")})`
        : `unknown target ${target}; the targets are: ${BUILD_TARGETS.join(", ")}`,
    );
  }
  const manifestPath = resolve(values.manifest ?? env.SVC_MANIFEST ?? "svc.json");
  if (!existsSync(manifestPath)) {
    throw new BuildError(
      "MANIFEST_NOT_FOUND",
      `no manifest at ${shown(manifestPath)}; run in the app's directory, or pass --manifest or set SVC_MANIFEST`,
    );
  }
  // The manifest's own problems read as the server's boot would report them (a ConfigError).
  await loadManifestFile(manifestPath);
  const outDir = resolve(values.out ?? join(dirname(manifestPath), "edge"));

  const { buildEdgeApp } = await import("@svc/edge");
  let result: Awaited<ReturnType<typeof buildEdgeApp>>;
  try {
    result = await buildEdgeApp({
      manifestPath,
      outDir,
      ...(values.name !== undefined && { name: values.name }),
      docs: !values["no-docs"],
    });
  } catch (error) {
    if (isBundleFailure(error)) {
      const lines = error.errors.map((message) =>
        message.location
          ? `${message.location.file}:${message.location.line}:${message.location.column}: ${message.text}`
          : message.text,
      );
      throw new BuildError(
        "FUNCTION_NOT_BUNDLED",
        `the Worker cannot be bundled:\n  ${lines.join("\n  ")}`,
      );
    }
    // buildEdgeApp's own refusals of the functions directory (a bad or repeated name).
    if (error instanceof Error && /^svc-edge: .*function/.test(error.message)) {
      throw new BuildError("FUNCTION_NOT_BUNDLED", error.message.slice("svc-edge: ".length));
    }
    throw error;
  }
  io.stdout(
    `svc: build: ${shown(result.workerPath)} (${Math.round(result.bytes / 1024)} KiB, ${result.functions.length} functions)\n`,
  );
  io.stdout(
    result.migrationPath === null
      ? "svc: build: schema unchanged, no new migration\n"
      : `svc: build: new migration ${shown(result.migrationPath)}\n`,
  );
  io.stdout(
    result.wranglerWritten
      ? `svc: build: wrote ${shown(result.wranglerPath)}; set its database_id (npx wrangler d1 create) before deploying\n`
      : `svc: build: kept ${shown(result.wranglerPath)}\n`,
  );
  return 0;
};
