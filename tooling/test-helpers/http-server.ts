import {
  createServer,
  type IncomingHttpHeaders,
  type RequestListener,
  type Server,
} from "node:http";

/** A request the fake provider received, body as text. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, e.g. `/v3/mail/send`. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What the fake answers: a status and body, or `"hang"` to never answer. */
export type FakeReply =
  | { readonly status: number; readonly body?: string; readonly headers?: Record<string, string> }
  | "hang";

/** A fake provider on an ephemeral 127.0.0.1 port. */
export interface FakeServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  /** Every request received so far, in order. */
  readonly requests: readonly RecordedRequest[];
}

const open = new Set<Server>();

/**
 * Starts a fake HTTP provider for tests; `reply` decides each answer
 * (default 200 `{}`). Call `closeFakeServers` in `afterEach`.
 */
export async function startFakeServer(
  reply: (request: RecordedRequest) => FakeReply = () => ({ status: 200, body: "{}" }),
): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(recorded);
      const answer = reply(recorded);
      if (answer === "hang") return;
      res.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers });
      res.end(answer.body ?? "");
    });
  });
  open.add(server);
  return { url: await listenOnLoopback(server), requests };
}

/**
 * Serves a real handler (an express app, say) on an ephemeral 127.0.0.1 port
 * and returns its base URL, without a trailing slash. `closeFakeServers`
 * closes it with the fakes, so a suite needs one `afterEach` for both.
 */
export async function serveOnLoopback(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  open.add(server);
  return listenOnLoopback(server);
}

/** Closes every server started here (fake or real), dropping hanging connections. */
export async function closeFakeServers(): Promise<void> {
  const servers = [...open];
  open.clear();
  await Promise.all(servers.map(closeServer));
}

/**
 * Listens on an ephemeral 127.0.0.1 port and returns the base URL, without a
 * trailing slash, for a fake that closes itself instead of through
 * `closeFakeServers`.
 */
export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("No TCP address.");
  return `http://127.0.0.1:${address.port}`;
}

/** Closes `server` at once: open (hanging, kept-alive) connections are dropped. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** An address nothing listens on: a port that was just bound and released. */
export async function refusedURL(): Promise<string> {
  const server = createServer();
  const url = await listenOnLoopback(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return url;
}

/** A fetch that records each URL it is called with and answers `status` without I/O. */
export function recordingFetch(status = 200): { fetch: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  const fetchImpl: typeof fetch = async (input) => {
    urls.push(input instanceof Request ? input.url : String(input));
    // 204 and its kin may not carry a body.
    return new Response([204, 205, 304].includes(status) ? null : "{}", { status });
  };
  return { fetch: fetchImpl, urls };
}
