import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
const path = join(mkdtempSync(join(tmpdir(), "svc-bench-")), "b.db");
const raw = new Database(path);
raw.exec('create table "Todo" ("id" text primary key, "title" text, "done" integer, "ownerId" text, "priority" text, "createdAt" text, "meta" text) strict');
const ins = raw.prepare('insert into "Todo" values (?,?,?,?,?,?,?)');
raw.transaction(() => { for (let i = 0; i < 5000; i++) ins.run(i.toString(16).padStart(40, "0"), `todo ${i}`, i % 2, "u", "low", new Date().toISOString(), null); })();
const SQL = 'select "id", "title", "done", "ownerId", "priority", "createdAt", "meta" from "Todo" order by "id" asc limit ?';
async function time(label, fn, n = 500) {
  for (let i = 0; i < 50; i++) await fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  console.log(label, (Number(process.hrtime.bigint() - t) / 1000 / n).toFixed(1), "µs/op");
}
const stmt = raw.prepare(SQL);
await time("all (prepared)", () => stmt.all([1001]));
await time("prepare only", () => raw.prepare(SQL));
const db = new Kysely({ dialect: new SqliteDialect({ database: raw }) });
const cols = ["id", "title", "done", "ownerId", "priority", "createdAt", "meta"];
await time("kysely build+compile", () => db.selectFrom("Todo").select(cols).orderBy("id", "asc").limit(1001).compile());
await time("kysely execute", () => db.selectFrom("Todo").select(cols).orderBy("id", "asc").limit(1001).execute());
await time("decode loop", () => { const rows = stmt.all([1001]); for (const r of rows) { if (r.done !== null) r.done = r.done === 1; } });
