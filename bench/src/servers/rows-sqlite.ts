// Baseline C: a hand-written list endpoint — one prepared statement on
// better-sqlite3, `.all()`, `JSON.stringify` — over a copy of the svc rows.
import { createServer } from "node:http";
import Database from "better-sqlite3";
import { portFromEnv } from "./port.js";

const path = process.env.BENCH_DB_PATH;
if (path === undefined || path === "") throw new Error("BENCH_DB_PATH is required");
const db = new Database(path, { readonly: true, fileMustExist: true });
const list = db.prepare<[number]>(
  'SELECT "id", "name", "count", "active", "createdAt" FROM "Item" ORDER BY "id" LIMIT ?',
);

function limitOf(url: string | undefined): number {
  const query = url?.split("?")[1];
  const limit = Number(new URLSearchParams(query).get("limit") ?? "100");
  return Number.isInteger(limit) && limit > 0 ? Math.min(limit, 1000) : 100;
}

createServer((req, res) => {
  const body = JSON.stringify(list.all(limitOf(req.url)));
  res.writeHead(200, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
  });
  res.end(body);
}).listen(portFromEnv(), "127.0.0.1");
