import { connect } from "node:net";

/** A request written byte for byte: any request target, no client-side normalisation. */
export interface RawRequest {
  readonly method?: string;
  /** The request target as sent: `/api/x`, `http://host/api/x`, `*`, ... */
  readonly target: string;
  /** Header lines to send; `Host` defaults to the server's, `Connection: close` is always added. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** A parsed answer: status, lower-cased headers (repeated ones joined by "\n"), body text. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

/**
 * Sends one HTTP/1.1 request over a fresh TCP connection and reads the
 * answer to the end (fetch and http.request cannot send an absolute-form
 * or otherwise odd target unchanged).
 */
export function rawRequest(port: number, request: RawRequest): Promise<RawResponse> {
  const headers: Record<string, string> = { host: `127.0.0.1:${port}`, ...request.headers };
  const body = request.body ?? "";
  if (request.body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  const head = [
    `${request.method ?? "GET"} ${request.target} HTTP/1.1`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    "connection: close",
  ].join("\r\n");
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // Written, not ended: a half-closed socket makes express's static
    // file sender give up; `connection: close` ends the exchange instead.
    const socket = connect(port, "127.0.0.1", () => socket.write(`${head}\r\n\r\n${body}`));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

function parseResponse(bytes: Buffer): RawResponse {
  const split = bytes.indexOf("\r\n\r\n");
  if (split < 0) throw new Error(`no complete response: ${JSON.stringify(String(bytes))}`);
  const [statusLine = "", ...lines] = bytes.subarray(0, split).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}\n${value}`;
  }
  let rest = bytes.subarray(split + 4);
  if (headers["transfer-encoding"] === "chunked") rest = unchunk(rest);
  const body = rest.toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status, headers, body, json };
}

function unchunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let rest = bytes;
  for (;;) {
    const lineEnd = rest.indexOf("\r\n");
    const size = Number.parseInt(rest.subarray(0, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
    rest = rest.subarray(lineEnd + 2 + size + 2);
  }
}
