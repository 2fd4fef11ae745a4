// Baseline A: the least a Node.js HTTP server can do per request.
import { createServer } from "node:http";
import { portFromEnv } from "./port.js";

const body = JSON.stringify({ hello: "world" });
const length = String(Buffer.byteLength(body));

createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": length });
  res.end(body);
}).listen(portFromEnv(), "127.0.0.1");
