/**
 * `edge-dev.mjs`, written into an app scaffolded with `--edge`: `npm run dev`
 * runs it after `svc build --target edge`. It serves the Worker in `edge/`
 * on this machine in workerd through miniflare (no Cloudflare account, no
 * network), on a local D1 database kept in `.svc/edge-d1` with every
 * migration of `edge/migrations` applied once, in dev mode (sign-in codes in
 * the answer) with an admin token kept in `.svc/edge-admin-token`.
 */
export const EDGE_DEV_SCRIPT = `// Serves the Worker that \`svc build --target edge\` wrote to edge/ on this
// machine: workerd through miniflare, a local D1 database in .svc/edge-d1,
// dev mode, the admin token in .svc/edge-admin-token. \`npm run dev\` runs it.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Miniflare } from "miniflare";

const dir = "edge";
const state = ".svc";
mkdirSync(state, { recursive: true });
const tokenFile = join(state, "edge-admin-token");
if (!existsSync(tokenFile)) {
  writeFileSync(tokenFile, randomBytes(32).toString("hex"), { mode: 0o600 });
}
const adminToken = readFileSync(tokenFile, "utf8").trim();

// wrangler.jsonc without its comment lines: the Worker's date, flags and vars.
const wrangler = JSON.parse(
  readFileSync(join(dir, "wrangler.jsonc"), "utf8").replace(/^\\s*\\/\\/.*$/gm, ""),
);
const mf = new Miniflare({
  modules: true,
  scriptPath: join(dir, wrangler.main ?? "worker.js"),
  modulesRoot: dir,
  compatibilityDate: wrangler.compatibility_date,
  compatibilityFlags: wrangler.compatibility_flags ?? [],
  d1Databases: ["DB"],
  d1Persist: join(state, "edge-d1"),
  host: "127.0.0.1",
  port: Number(process.env.PORT ?? 8787),
  bindings: { ...wrangler.vars, SVC_DEV_MODE: "true", SVC_ADMIN_TOKEN: adminToken },
});
const url = await mf.ready;

// Each migration file once, in name order, as \`wrangler d1 migrations apply --local\` would.
const db = await mf.getD1Database("DB");
await db.prepare("create table if not exists _svc_dev_migrations (name text primary key)").run();
const applied = new Set(
  (await db.prepare("select name from _svc_dev_migrations").all()).results.map((row) => row.name),
);
const migrations = join(dir, wrangler.d1_databases?.[0]?.migrations_dir ?? "migrations");
for (const file of readdirSync(migrations).filter((name) => name.endsWith(".sql")).sort()) {
  if (applied.has(file)) continue;
  const statements = readFileSync(join(migrations, file), "utf8")
    .split(/;\\s*\\n/)
    .map((statement) => statement.replace(/^\\s*--.*$/gm, "").trim().replace(/;$/, ""))
    .filter((statement) => statement !== "");
  await db.batch([
    ...statements.map((statement) => db.prepare(statement)),
    db.prepare("insert into _svc_dev_migrations (name) values (?)").bind(file),
  ]);
  console.log(\`edge-dev: applied \${file}\`);
}
console.log(\`edge-dev: \${wrangler.name} on \${url.origin} (admin token in \${tokenFile})\`);

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    mf.dispose().then(() => process.exit(0));
  });
}
`;
