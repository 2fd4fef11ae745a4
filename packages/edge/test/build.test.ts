import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { buildEdgeApp } from "../src/build/build-edge.js";
import { fixture } from "./edge-worker.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

it("writes a migration only for what changed, and keeps an edited wrangler.jsonc", async () => {
  const app = await mkdtemp(join(tmpdir(), "svc-edge-app-"));
  dirs.push(app);
  await cp(join(fixture("notes"), ".."), app, { recursive: true });
  const manifestPath = join(app, "svc.json");
  const outDir = join(app, "edge");
  const first = await buildEdgeApp({ manifestPath, outDir, docs: false });
  expect(first.migrationPath).toMatch(/0001_svc\.sql$/);
  expect(first.functions).toEqual(["bumpNote", "myNotes", "ping", "writeNote"]);
  const wrangler = await readFile(first.wranglerPath, "utf8");
  expect(wrangler).toContain('"nodejs_compat"');
  expect(wrangler).toContain('"binding": "DB"');
  await writeFile(first.wranglerPath, `${wrangler}// edited\n`);

  const again = await buildEdgeApp({ manifestPath, outDir, docs: false });
  expect(again.migrationPath).toBeNull();
  expect(again.wranglerWritten).toBe(false);
  expect(await readFile(first.wranglerPath, "utf8")).toContain("// edited");

  const manifest = JSON.parse(await readFile(manifestPath, "utf8"));
  manifest.entities[1].fields.push({ name: "pinned", type: "bool", optional: true });
  await writeFile(manifestPath, JSON.stringify(manifest));
  const changed = await buildEdgeApp({ manifestPath, outDir, docs: false });
  expect(changed.migrationPath).toMatch(/0002_svc\.sql$/);
  const sql = await readFile(changed.migrationPath as string, "utf8");
  expect(sql).toContain('alter table "Note" add column "pinned" integer');
  expect(sql).not.toContain('create table "Note"');
});
