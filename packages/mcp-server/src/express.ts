import { Buffer } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpServer } from "./create-mcp-server.js";
import type { McpHttpResponse } from "./http-response.js";

/**
 * A request handler for express (`app.all("/mcp", handler)`) that is also a
 * plain `node:http` request listener. `req.body` is read only when a body
 * parser already consumed the stream.
 */
export type McpRequestHandler = (
  req: IncomingMessage & { body?: unknown },
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

type BodyRead = { body: Uint8Array | string | undefined; complete: boolean };

/**
 * Read the raw body up to `limit + 1` bytes. Past the limit the rest is
 * drained and discarded, and the core answers 413 for what was read.
 */
function readRawBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    const onData = (chunk: Uint8Array | string): void => {
      const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
      chunks.push(bytes);
      size += bytes.byteLength;
      if (size > limit) {
        settled = true;
        req.off("data", onData);
        req.resume();
        resolve({ body: Buffer.concat(chunks), complete: false });
      }
    };
    req.on("data", onData);
    req.once("end", () => {
      if (!settled) resolve({ body: Buffer.concat(chunks), complete: true });
    });
    req.once("error", (error) => {
      if (!settled) reject(error);
    });
  });
}

function parsedBody(body: unknown): Uint8Array | string | undefined {
  if (body === undefined || typeof body === "string" || body instanceof Uint8Array) return body;
  return JSON.stringify(body);
}

async function readBody(
  req: IncomingMessage & { body?: unknown },
  limit: number,
): Promise<BodyRead> {
  if (req.method?.toUpperCase() !== "POST") return { body: undefined, complete: true };
  const length = Number(req.headers["content-length"]);
  if (Number.isFinite(length) && length > limit) return { body: undefined, complete: false };
  if (req.readableEnded) return { body: parsedBody(req.body), complete: true };
  return readRawBody(req, limit);
}

function send(res: ServerResponse, response: McpHttpResponse, closeConnection: boolean): void {
  res.statusCode = response.status;
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  if (closeConnection) res.setHeader("connection", "close");
  res.end(response.body);
}

/**
 * Mount an MCP server in express (or `node:http`). It reads the raw request
 * body itself, so mount it with no body parser in front:
 * `app.all("/mcp", mcpExpressHandler(server))`. When a parser did run
 * first, its `req.body` is used instead (a string, a Buffer, or parsed JSON
 * that is serialized again), and that parser's own limits and errors apply.
 * Bodies over the server's `maxBodyBytes` get 413 without being buffered.
 *
 * @example
 * const app = express();
 * app.all("/mcp", mcpExpressHandler(createMcpServer({ name: "docs", version: "1.0.0", tools })));
 */
export function mcpExpressHandler(server: McpServer): McpRequestHandler {
  return (req, res, next) => {
    const run = async (): Promise<void> => {
      const read = await readBody(req, server.maxBodyBytes);
      const response = await server.handle({
        method: req.method ?? "GET",
        headers: req.headers,
        ...(read.body === undefined ? {} : { body: read.body }),
      });
      send(res, response, !read.complete);
    };
    run().catch((error: unknown) => {
      if (next !== undefined) {
        next(error);
      } else if (!res.headersSent) {
        res.statusCode = 500;
        res.end();
      }
    });
  };
}
