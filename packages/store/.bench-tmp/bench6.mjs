import Database from "better-sqlite3";
const raw = new Database(":memory:");
raw.exec('create table "Todo" ("id" text primary key, "title" text, "done" integer, "ownerId" text, "priority" text, "createdAt" text, "meta" text) strict');
const ins = raw.prepare('insert into "Todo" values (?,?,?,?,?,?,?)');
raw.transaction(() => { for (let i = 0; i < 5000; i++) ins.run(i.toString(16).padStart(40, "0"), `todo ${i}`, i % 2, "u", "low", new Date().toISOString(), null); })();
const stmt = raw.prepare('select "id", "title", "done", "ownerId", "priority", "createdAt", "meta" from "Todo" order by "id" limit 1000');
const stmtB = raw.prepare('select "id", "title", "done" = 1 as "done", "ownerId", "priority", "createdAt", "meta" from "Todo" order by "id" limit 1000');
const bools = ["done"], jsons = ["meta"];
const inPlaceBool = (rows) => { for (const r of rows) { for (const n of bools) { const v = r[n]; if (v !== null) r[n] = v === 1; } } return rows; };
const inPlaceJson = (rows) => { for (const r of rows) { for (const n of jsons) { const v = r[n]; if (typeof v === "string") r[n] = JSON.parse(v); } } return rows; };
const inPlaceBoth = (rows) => inPlaceJson(inPlaceBool(rows));
const arrBool = (rows) => { const T = [false, true]; for (const r of rows) { for (const n of bools) { const v = r[n]; if (v !== null) r[n] = v === 1 ? true : false; } } return rows; };
const fns = { none: () => stmt.all(), inPlaceBool: () => inPlaceBool(stmt.all()), inPlaceJson: () => inPlaceJson(stmt.all()), both: () => inPlaceBoth(stmt.all()), sqlBoolExpr: () => stmtB.all() };
const best = {};
for (let round = 0; round < 40; round++) for (const [k, fn] of Object.entries(fns)) { const t = process.hrtime.bigint(); for (let i = 0; i < 50; i++) fn(); const v = Number(process.hrtime.bigint() - t) / 1000 / 50; best[k] = Math.min(best[k] ?? Infinity, v); }
console.log(best);
