import Database from "better-sqlite3";
const raw = new Database(":memory:");
raw.exec('create table "Todo" ("id" text primary key, "title" text, "done" integer, "ownerId" text, "priority" text, "createdAt" text, "meta" text) strict');
const ins = raw.prepare('insert into "Todo" values (?,?,?,?,?,?,?)');
raw.transaction(() => { for (let i = 0; i < 5000; i++) ins.run(i.toString(16).padStart(40, "0"), `todo ${i}`, i % 2, "u", "low", new Date().toISOString(), i % 3 ? null : '{"a":1}'); })();
const stmt = raw.prepare('select "id", "title", "done", "ownerId", "priority", "createdAt", "meta" from "Todo" order by "id" limit 1000');
const fields = ["title", "done", "ownerId", "priority", "createdAt", "meta"];
const inPlace = (rows) => { for (const r of rows) { const d = r.done; if (d !== null) r.done = d === 1; const m = r.meta; if (typeof m === "string") r.meta = JSON.parse(m); } return rows; };
const codecs = [["id", null], ["title", null], ["done", (v) => v === null ? null : v === 1], ["ownerId", null], ["priority", null], ["createdAt", null], ["meta", (v) => typeof v === "string" ? JSON.parse(v) : v]];
const loop = (rows) => { const out = new Array(rows.length); for (let i = 0; i < rows.length; i++) { const r = rows[i]; const o = {}; for (const [n, d] of codecs) { const v = r[n]; o[n] = d === null ? v : d(v); } out[i] = o; } return out; };
const body = "return { " + ["id", ...fields].map((n) => n === "done" ? `${JSON.stringify(n)}: r[${JSON.stringify(n)}] === null ? null : r[${JSON.stringify(n)}] === 1` : n === "meta" ? `${JSON.stringify(n)}: typeof r[${JSON.stringify(n)}] === "string" ? JSON.parse(r[${JSON.stringify(n)}]) : r[${JSON.stringify(n)}]` : `${JSON.stringify(n)}: r[${JSON.stringify(n)}]`).join(", ") + " };";
const make = new Function("r", body);
const gen = (rows) => { for (let i = 0; i < rows.length; i++) rows[i] = make(rows[i]); return rows; };
const fns = { none: () => stmt.all(), inPlace: () => inPlace(stmt.all()), loop: () => loop(stmt.all()), gen: () => gen(stmt.all()) };
const best = {};
for (let round = 0; round < 40; round++) for (const [k, fn] of Object.entries(fns)) { const t = process.hrtime.bigint(); for (let i = 0; i < 50; i++) fn(); const v = Number(process.hrtime.bigint() - t) / 1000 / 50; best[k] = Math.min(best[k] ?? Infinity, v); }
console.log(best);
