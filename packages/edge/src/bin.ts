#!/usr/bin/env node
import { parseArgs } from "node:util";
import { buildEdgeApp, shown } from "./build/build-edge.js";

const USAGE = `Usage: svc-edge build [--manifest svc.json] [--out edge] [--name <worker>] [--no-docs]

Bundles the app into a Cloudflare Worker directory (experimental):
  worker.js        the manifest, function files and svc's docs in one module
  migrations/      D1 migrations (a new file when the schema changed)
  wrangler.jsonc   written once; later builds keep your edits

Then: npx wrangler d1 create <name>   (put its id in wrangler.jsonc)
      npx wrangler d1 migrations apply <name> --remote
      npx wrangler secret put SVC_ADMIN_TOKEN
      npx wrangler deploy`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      manifest: { type: "string", default: "svc.json" },
      out: { type: "string", default: "edge" },
      name: { type: "string" },
      "no-docs": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help || positionals[0] !== "build" || positionals.length > 1) {
    (values.help ? console.log : console.error)(USAGE);
    return values.help ? 0 : 2;
  }
  const result = await buildEdgeApp({
    manifestPath: values.manifest,
    outDir: values.out,
    ...(values.name !== undefined && { name: values.name }),
    docs: !values["no-docs"],
  });
  console.log(
    `svc-edge: ${shown(result.workerPath)} (${Math.round(result.bytes / 1024)} KiB, ${result.functions.length} functions)`,
  );
  console.log(
    result.migrationPath === null
      ? "svc-edge: schema unchanged, no new migration"
      : `svc-edge: new migration ${shown(result.migrationPath)}`,
  );
  console.log(
    result.wranglerWritten
      ? `svc-edge: wrote ${shown(result.wranglerPath)}; set its database_id (npx wrangler d1 create)`
      : `svc-edge: kept ${shown(result.wranglerPath)}`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`svc-edge: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
