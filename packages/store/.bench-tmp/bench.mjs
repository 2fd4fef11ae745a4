import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { parseManifest } from "@svc/schema";
import { adminAuth, createStore } from "../dist/index.js";
import { openSqlite } from "../dist/sqlite.js";

const manifest = parseManifest({
  manifest_version: 1, name: "b", version: "1",
  entities: [{ name: "Todo", fields: [
    { name: "title", type: "string" }, { name: "done", type: "bool" }, { name: "ownerId", type: "string", owner: true },
    { name: "priority", type: "enum", values: ["low", "high"] }, { name: "createdAt", type: "datetime", defaultNow: true },
    { name: "meta", type: "json", optional: true }] }],
});
const path = join(mkdtempSync(join(tmpdir(), "svc-bench-")), "b.db");
const opened = openSqlite(path);
const store = createStore({ ...opened, manifest });
await store.migrate();
await store.transaction(adminAuth, async (db) => {
  for (let i = 0; i < 5000; i++) await db.insert("Todo", { title: `todo ${i}`, done: i % 2 === 0, ownerId: "u", priority: "low" });
});
const raw = new Database(path, { readonly: true });
const stmt = raw.prepare('select "id","title","done","ownerId","priority","createdAt","meta" from "Todo" order by "id" limit 1000');
const reader = store.reader(adminAuth);
async function time(label, fn, n = 300) {
  for (let i = 0; i < 30; i++) await fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  const us = Number(process.hrtime.bigint() - t) / 1000 / n;
  console.log(label, us.toFixed(0), "µs/op");
  return us;
}
const a = await time("raw better-sqlite3 (prepared once)", () => stmt.all());
const b = await time("raw better-sqlite3 (prepare each)", () => raw.prepare('select "id","title","done","ownerId","priority","createdAt","meta" from "Todo" order by "id" limit 1001').all());
const c = await time("store.query limit 1000", () => reader.query("Todo", { limit: 1000 }));
const d = await time("store.get", () => reader.get("Todo", "0".repeat(40)), 5000);
console.log("ratio", (c / a).toFixed(2));
await opened.close();
