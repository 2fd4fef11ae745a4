// Baseline E: the least a list endpoint can do: bare node:http sending the
// 1,000 rows' JSON (the very bytes svc answers) from memory, built once at start.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { portFromEnv } from "./port.js";

const path = process.env.BENCH_ROWS_PATH;
if (path === undefined || path === "") throw new Error("BENCH_ROWS_PATH is required");
const body = readFileSync(path);
const length = String(body.length);

createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": length });
  res.end(body);
}).listen(portFromEnv(), "127.0.0.1");
