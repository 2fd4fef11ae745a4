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
raw.pragma("journal_mode = WAL");
const stmt = raw.prepare('select * from "Todo" order by "id" limit 1000');
const reader = store.reader(adminAuth);
const cols = ["id", "title", "done", "ownerId", "priority", "createdAt", "meta"];
const fns = {
  raw: () => stmt.all(),
  kysely: () => opened.db.selectFrom("Todo").select(cols).orderBy("id", "asc").limit(1001).execute(),
  store: () => reader.query("Todo", { limit: 1000 }),
};
const totals = { raw: 0, kysely: 0, store: 0 };
for (let round = 0; round < 30; round++) {
  for (const [name, fn] of Object.entries(fns)) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < 100; i++) await fn();
    { const v = Number(process.hrtime.bigint() - t) / 1000 / 100; totals[name] = round === 0 ? v : Math.min(totals[name], v); }
  }
}
for (const [k, v] of Object.entries(totals)) console.log(k, (v).toFixed(0), "µs/op");
await opened.close();
// same connection comparisons
import { Kysely, SqliteDialect } from "kysely";
const conn = new Database(path);
conn.pragma("journal_mode = WAL"); conn.pragma("foreign_keys = ON"); conn.pragma("synchronous = NORMAL");
const kdb = new Kysely({ dialect: new SqliteDialect({ database: conn }) });
const store2 = createStore({ db: kdb, dialect: "sqlite", manifest });
const r2 = store2.reader(adminAuth);
const stmt2 = conn.prepare('select * from "Todo" order by "id" limit 1000');
const fns2 = {
  raw: () => stmt2.all(),
  kysely: () => kdb.selectFrom("Todo").select(cols).orderBy("id", "asc").limit(1001).execute(),
  store: () => r2.query("Todo", { limit: 1000 }),
};
const t2 = { raw: 0, kysely: 0, store: 0 };
for (let round = 0; round < 30; round++) {
  for (const [name, fn] of Object.entries(fns2)) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < 100; i++) await fn();
    { const v = Number(process.hrtime.bigint() - t) / 1000 / 100; t2[name] = round === 0 ? v : Math.min(t2[name], v); }
  }
}
for (const [k, v] of Object.entries(t2)) console.log("same-conn", k, (v).toFixed(0), "µs/op");
