import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { AuthContext } from "@svc/schema";
import type { CallerSources } from "@svc/schema/http";
import { authenticateLive } from "./live-callers.js";

// Request helpers shared by the upgrade (WebSocket) and streaming (SSE)
// transports: where the caller's credential is, whether the page's origin
// may connect, which path is asked for.

/** Answers an upgrade request with a plain HTTP status and closes the socket. */
export function refuse(socket: Duplex, status: number, text: string): void {
  socket.once("finish", () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}

/**
 * Refuses an upgrade a hub cannot take now, before any credential is read:
 * 503 once the hub is closing, 403 from a page whose `Origin` is not
 * trusted (see `originTrusted`). Returns whether it refused.
 */
export function refuseUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  gate: { readonly closed: boolean; readonly trustedOrigins: true | readonly string[] },
): boolean {
  if (gate.closed) {
    refuse(socket, 503, "Service Unavailable");
    return true;
  }
  if (!originTrusted(req, gate.trustedOrigins)) {
    refuse(socket, 403, "Forbidden");
    return true;
  }
  return false;
}

/** The subprotocols a WebSocket upgrade offers. */
export function protocolsOf(req: IncomingMessage): string[] {
  const header = req.headers["sec-websocket-protocol"];
  return header === undefined ? [] : header.split(",").map((entry) => entry.trim());
}

/** The bearer credential of a request: a token, none, or a malformed header. */
export type Bearer = { token: string | undefined } | { malformed: true };

/** `Authorization: Bearer <token>`, else a `bearer.<token>` subprotocol (browsers). */
export function bearerOf(req: IncomingMessage): Bearer {
  const header = req.headers.authorization;
  if (header !== undefined && header !== "") {
    const token = /^Bearer +(\S+) *$/i.exec(header)?.[1];
    return token === undefined ? { malformed: true } : { token };
  }
  const entry = protocolsOf(req).find((protocol) => protocol.startsWith("bearer."));
  return { token: entry?.slice("bearer.".length) || undefined };
}

/**
 * Whether the page at `Origin` may connect: requests without one are not
 * from browsers; the server's own origin (`Host`) always may.
 */
export function originTrusted(req: IncomingMessage, trusted: true | readonly string[]): boolean {
  const origin = req.headers.origin;
  if (origin === undefined || trusted === true || trusted.includes(origin)) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/** The path of a request target, without its query. */
export function pathOf(url: string | undefined): string {
  const query = url?.indexOf("?") ?? -1;
  return query === -1 ? (url ?? "") : (url ?? "").slice(0, query);
}

/**
 * The caller of a live-transport request: a signed-in user or the admin
 * token, else the reason it is refused (anonymous callers cannot subscribe).
 */
export async function upgradeCaller(
  req: IncomingMessage,
  sources: CallerSources,
): Promise<{ auth: AuthContext; bearer: string | undefined } | { reason: string }> {
  const bearer = bearerOf(req);
  if ("malformed" in bearer) return { reason: "the Authorization header must be Bearer <token>" };
  try {
    const auth = await authenticateLive(req, sources, bearer.token);
    if (auth !== null && (auth.isAdmin || auth.userId !== null)) {
      return { auth, bearer: bearer.token };
    }
    if (auth === null && bearer.token !== undefined) return { reason: "invalid token" };
    return { reason: "authentication required" };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    return { reason: typeof code === "string" ? code : "invalid token" };
  }
}
