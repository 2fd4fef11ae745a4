import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { type ServerErrorCode, serverErrorCodes } from "../errors.js";

/** Node's parser error codes that have an answer of their own; every other one is 400. */
const CODES: Readonly<Record<string, ServerErrorCode>> = {
  HPE_HEADER_OVERFLOW: "HEADERS_TOO_LARGE",
  HPE_CHUNK_EXTENSIONS_OVERFLOW: "PAYLOAD_TOO_LARGE",
  ERR_HTTP_REQUEST_TIMEOUT: "REQUEST_TIMEOUT",
};

/**
 * The HTTP server's `clientError` listener: a request Node's parser refuses
 * before express sees it (a target such as `\api` or `api/x`, a request line
 * or headers past `--max-http-header-size`, a malformed header) is answered
 * with the svc error envelope (Node's own answer has no body), with the
 * status Node would have used, and the connection is closed.
 *
 * @example
 * server.on("clientError", answerClientError);
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // A client that went away, or a socket that already answered, gets nothing more.
  const bytesWritten = (socket as Duplex & { bytesWritten?: number }).bytesWritten ?? 0;
  if (error.code === "ECONNRESET" || !socket.writable || bytesWritten > 0) {
    socket.destroy();
    return;
  }
  const code = CODES[error.code ?? ""] ?? "BAD_REQUEST";
  const { status, message } = serverErrorCodes[code];
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}
