// Baseline F: an express 5 endpoint doing case 1's insert by hand: the JSON
// body parsed, one prepared better-sqlite3 INSERT in a transaction on a file
// opened like svc opens its own (WAL, synchronous = NORMAL, foreign keys on),
// into a table of the same shape as svc's `Touch`, answering the new id.
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import express from "express";
import { portFromEnv } from "./port.js";

const path = process.env.BENCH_TOUCH_DB_PATH;
if (path === undefined || path === "") throw new Error("BENCH_TOUCH_DB_PATH is required");
const db = new Database(path);
db.pragma("journal_mode = WAL");
db.pragma("busy_timeout = 5000");
db.pragma("foreign_keys = ON");
db.pragma("synchronous = NORMAL");
db.exec(`CREATE TABLE IF NOT EXISTS "Touch" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "note" TEXT,
  "createdAt" TEXT
) STRICT, WITHOUT ROWID`);
const insert = db.prepare('INSERT INTO "Touch" ("id", "note", "createdAt") VALUES (?, ?, ?)');
const touch = db.transaction((id: string) => {
  insert.run(id, "touched", new Date().toISOString());
});

const app = express();
app.disable("x-powered-by");
app.set("etag", false);
app.get("/ready", (_req, res) => {
  res.json({ ready: true });
});
app.post("/", express.json({ type: () => true }), (_req, res) => {
  const id = randomBytes(20).toString("hex");
  touch(id);
  res.json({ id });
});
app.listen(portFromEnv(), "127.0.0.1");
