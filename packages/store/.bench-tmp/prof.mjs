import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
const reader = store.reader(adminAuth);
const t = Date.now();
let n = 0;
while (Date.now() - t < 4000) { await reader.query("Todo", { limit: 1000 }); n++; }
console.log((4000 / n * 1000).toFixed(0), "µs/op");
