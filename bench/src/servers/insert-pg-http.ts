// Baseline P of `bench:scale`: bare node:http doing svc's one-row mutation
// by hand on Postgres. The JSON body is read and parsed (svc parses it),
// then one pooled connection runs BEGIN, a named prepared INSERT into a
// table shaped like the one svc creates for `Touch`, and COMMIT, and the
// answer is `{id}` with a 40-hex id, as `POST /api/fn/touch` answers. The
// pool has svc's writer pool size (`BENCH_POOL_SIZE`), so the two hold the
// same number of connections open to write with.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import pg from "pg";
import { portFromEnv } from "./port.js";

const url = process.env.BENCH_DATABASE_URL;
if (url === undefined || url === "") throw new Error("BENCH_DATABASE_URL is required");
const poolSize = Number(process.env.BENCH_POOL_SIZE);
if (!Number.isInteger(poolSize) || poolSize < 1) throw new Error("BENCH_POOL_SIZE is required");

const pool = new pg.Pool({ connectionString: url, max: poolSize });
// A connection dropped by the server would otherwise crash the process.
pool.on("error", () => {});
// The column types svc's migration gives `Touch` on Postgres.
await pool.query(`CREATE TABLE IF NOT EXISTS "Touch" (
  "id" text COLLATE "C" PRIMARY KEY,
  "note" text COLLATE "C",
  "createdAt" timestamptz
)`);

const INSERT = {
  name: "bench_touch_insert",
  text: 'INSERT INTO "Touch" ("id", "note", "createdAt") VALUES ($1, $2, $3)',
};

async function touch(id: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    try {
      await client.query({ ...INSERT, values: [id, "touched", new Date().toISOString()] });
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    }
  } finally {
    client.release();
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
  });
  res.end(body);
}

createServer((req, res) => {
  if (req.method === "GET" && req.url === "/ready") {
    send(res, 200, '{"ready":true}');
    return;
  }
  readBody(req)
    .then(async (text) => {
      JSON.parse(text === "" ? "{}" : text);
      const id = randomBytes(20).toString("hex");
      await touch(id);
      send(res, 200, JSON.stringify({ id }));
    })
    .catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      send(res, 500, JSON.stringify({ error: { code: "BENCH_FAILED", message } }));
    });
}).listen(portFromEnv(), "127.0.0.1");
