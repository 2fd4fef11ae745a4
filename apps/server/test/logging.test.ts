import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../src/config.js";
import { formatPretty } from "../src/logging/pretty.js";
import { batchLines } from "../src/logging/stdout.js";
import { appServerPerTest } from "./app-server.js";
import {
  ADMIN_TOKEN,
  type DisposableServer,
  databaseEnv,
  startLoopbackServer,
  TODO_MANIFEST,
  tempDir,
} from "./fixtures.js";

/** One parsed JSON log line. */
type LogLine = Record<string, unknown> & { level: string; msg: string; time: string };

/** A log destination that keeps every line, raw and parsed. */
function captureLog(): { raw: string[]; lines(): LogLine[]; write(line: string): void } {
  const raw: string[] = [];
  return {
    raw,
    write: (line) => {
      raw.push(line);
    },
    lines: () => raw.map((line) => JSON.parse(line) as LogLine),
  };
}

/** The todo manifest, its functions replaced by plain `.mjs` files that log, throw and write. */
function writeLoggingApp(dir: string): string {
  const manifest = JSON.parse(readFileSync(TODO_MANIFEST, "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "svc.json"), JSON.stringify({ ...manifest, functions: "functions" }));
  mkdirSync(join(dir, "functions"));
  const files: Record<string, string> = {
    "noisy.mjs": `export default { type: "query", handler: async (ctx, args) => {
      ctx.log.debug("debug line");
      ctx.log.info("hello from noisy", { n: 1, fn: "spoofed" });
      ctx.log.warn("careful");
      return { ok: true };
    } };`,
    "boom.mjs": `export default { type: "query", handler: async () => { throw new Error("kaboom"); } };`,
    "addTodo.mjs": `export default { type: "mutation", handler: async (ctx, args) => {
      ctx.log.info("adding");
      return ctx.db.insert("Todo", { title: args.title, done: false, priority: "low", ownerId: "u1" });
    } };`,
  };
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(dir, "functions", name), text);
  }
  return join(dir, "svc.json");
}

interface LoggedServer extends DisposableServer {
  readonly log: ReturnType<typeof captureLog>;
}

async function startLogged(env: Record<string, string>): Promise<LoggedServer> {
  const log = captureLog();
  const server = await startLoopbackServer(
    { SVC_MANIFEST: TODO_MANIFEST, SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_RATE_LIMIT: "off", ...env },
    { logDestination: log },
  );
  return Object.assign(server, { log });
}

/** A {@link startLogged} server with `env` on a SQLite file of its own, for the enclosing `describe`. */
function loggedServerPerSuite(env: Record<string, string>): () => LoggedServer {
  const dir = tempDir();
  let server: LoggedServer | undefined;
  beforeAll(async () => {
    server = await startLogged({ SVC_DB_PATH: `${dir.path}/app.db`, ...env });
  });
  afterAll(async () => {
    await server?.[Symbol.asyncDispose]();
    dir[Symbol.dispose]();
  });
  return () => {
    if (server === undefined)
      throw new Error("the logged server runs only inside its suite's tests");
    return server;
  };
}

function callFunction(
  server: { url: string },
  name: string,
  args: unknown = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}/api/fn/${name}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify(args),
  });
}

/** The access log line of the request with this id (it is written when the response closes). */
async function accessLine(server: LoggedServer, requestId: string): Promise<LogLine> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const line = server.log
      .lines()
      .find((entry) => entry.requestId === requestId && "status" in entry);
    if (line !== undefined) return line;
    await new Promise((resolveWait) => setTimeout(resolveWait, 10));
  }
  throw new Error(`no access log line for ${requestId}: ${server.log.raw.join("")}`);
}

describe.each(testDatabases())("logs on $name", (database) => {
  const app = appServerPerTest(database, {
    scope: "suite",
    writeApp: writeLoggingApp,
    start: ({ manifest, target }) =>
      startLogged({ ...databaseEnv(target), SVC_MANIFEST: manifest, SVC_LOG_LEVEL: "debug" }),
  });
  let server: LoggedServer;

  beforeAll(() => {
    server = app.server;
  });

  it("answers a new short request id on every response", async () => {
    const first = (await callFunction(server, "noisy")).headers.get("x-request-id");
    const second = (await callFunction(server, "noisy")).headers.get("x-request-id");
    expect(first).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(second).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(second).not.toBe(first);
  });

  it("ignores an incoming X-Request-Id when no proxy is trusted", async () => {
    const response = await callFunction(server, "noisy", {}, { "x-request-id": "from-client" });
    expect(response.headers.get("x-request-id")).not.toBe("from-client");
  });

  it("writes one access line per request: method, route template, status, duration, caller, bytes", async () => {
    const response = await callFunction(server, "noisy");
    const body = await response.text();
    const requestId = response.headers.get("x-request-id") ?? "";
    const line = await accessLine(server, requestId);
    expect(line).toEqual({
      level: "info",
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      requestId,
      method: "POST",
      route: "/api/fn/:name",
      status: 200,
      durationMs: expect.any(Number),
      caller: "admin",
      bytes: Buffer.byteLength(body),
      msg: "POST /api/fn/:name 200",
    });
    expect(line.durationMs).toBeGreaterThan(0);
  });

  it.each([
    ["no credentials", {}, "anonymous", 401],
    ["a refused token", { authorization: "Bearer svc_nope" }, "rejected", 401],
  ])("names the caller kind of %s", async (_label, headers, caller, status) => {
    const response = await fetch(`${server.url}/api/fn/noisy`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: "{}",
    });
    expect(response.status).toBe(status);
    const line = await accessLine(server, response.headers.get("x-request-id") ?? "");
    expect(line).toMatchObject({ caller, status });
  });

  it("puts ctx.log lines in the same stream with the function name and request id", async () => {
    const response = await callFunction(server, "noisy");
    const requestId = response.headers.get("x-request-id");
    const lines = server.log.lines().filter((line) => line.requestId === requestId);
    expect(lines.filter((line) => line.fn === "noisy")).toEqual([
      expect.objectContaining({ level: "debug", msg: "debug line", fn: "noisy" }),
      // A field named `fn` cannot pass for another function.
      expect.objectContaining({ level: "info", msg: "hello from noisy", n: 1, fn: "noisy" }),
      expect.objectContaining({ level: "warn", msg: "careful", fn: "noisy" }),
    ]);
  });

  it("logs a mutation's ctx.log lines with its request id", async () => {
    const response = await callFunction(server, "addTodo", { title: "milk" });
    expect(response.status).toBe(200);
    const requestId = response.headers.get("x-request-id");
    expect(server.log.lines().filter((line) => line.fn === "addTodo")).toEqual([
      expect.objectContaining({ level: "info", msg: "adding", requestId }),
    ]);
  });

  it("logs a failing function at error with its request id, route template and cause", async () => {
    const response = await callFunction(server, "boom");
    expect(response.status).toBe(500);
    const requestId = response.headers.get("x-request-id");
    await accessLine(server, requestId ?? "");
    const errors = server.log
      .lines()
      .filter((line) => line.level === "error" && line.requestId === requestId);
    expect(errors).toEqual([
      expect.objectContaining({
        msg: "request failed",
        method: "POST",
        route: "/api/fn/:name",
        err: expect.objectContaining({ code: "FUNCTION_FAILED" }),
      }),
    ]);
    expect(JSON.stringify(errors[0])).toContain("kaboom");
  });
});

describe("request ids behind a trusted proxy", () => {
  const logged = loggedServerPerSuite({ SVC_TRUST_PROXY: "loopback" });

  it("keeps the proxy's id, on the response and in the log", async () => {
    const server = logged();
    const response = await fetch(`${server.url}/health`, {
      headers: { "x-request-id": "lb-7f3a.9_c-1" },
    });
    expect(response.headers.get("x-request-id")).toBe("lb-7f3a.9_c-1");
    expect(await accessLine(server, "lb-7f3a.9_c-1")).toMatchObject({
      route: "/health",
      caller: "none",
    });
  });

  it.each([
    ["too long", "a".repeat(129)],
    ["a space", "two words"],
    ["a quote", 'x"y'],
    ["a newline escape", "a\\nb"],
    ["empty", ""],
  ])("makes a new id instead of one with %s", async (_label, incoming) => {
    const server = logged();
    const response = await fetch(`${server.url}/health`, { headers: { "x-request-id": incoming } });
    const id = response.headers.get("x-request-id") ?? "";
    expect(id).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(await accessLine(server, id)).toMatchObject({ route: "/health", status: 200 });
  });
});

describe("what the log never holds", () => {
  const logged = loggedServerPerSuite({ SVC_LOG_LEVEL: "trace" });

  it("holds no token, password, cookie, body or query string", async () => {
    const server = logged();
    const password = "hunter2-Very-Secret-Pass";
    const email = "logged-user@example.com";
    const registered = await fetch(`${server.url}/api/auth/password/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    });
    expect(registered.status).toBe(200);
    const { token } = (await registered.json()) as { token: string };
    const login = await fetch(`${server.url}/api/auth/password/login?secret=query-Secret-42`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: "svc_session=cookie-Secret-99" },
      body: JSON.stringify({ email, password }),
    });
    expect(login.status).toBe(200);
    const wrong = await fetch(`${server.url}/api/auth/password/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: "wrong-Password-77" }),
    });
    expect(wrong.status).toBe(401);
    const me = await fetch(`${server.url}/api/auth/me?access_token=${token}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(me.status).toBe(200);
    const admin = await fetch(`${server.url}/api/entities/Todo?title=body-Secret-5`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "body-Secret-5", done: false, ownerId: "u", priority: "low" }),
    });
    expect(admin.status).toBeLessThan(500);
    const requestIds = [registered, login, wrong, me, admin].map((response) =>
      response.headers.get("x-request-id"),
    );
    for (const requestId of requestIds) await accessLine(server, requestId ?? "");
    const text = server.log.raw.join("");
    for (const secret of [
      password,
      "wrong-Password-77",
      token,
      ADMIN_TOKEN,
      "query-Secret-42",
      "cookie-Secret-99",
      "body-Secret-5",
      email,
      "?",
    ]) {
      expect(text).not.toContain(secret);
    }
    const callers = requestIds.map(
      (requestId) => server.log.lines().find((line) => line.requestId === requestId)?.caller,
    );
    expect(callers).toEqual(["anonymous", "anonymous", "anonymous", "session", "admin"]);
  });
});

describe("log settings", () => {
  it.each([
    [
      { SVC_LOG_LEVEL: "verbose" },
      "SVC_LOG_LEVEL: must be one of trace, debug, info, warn, error, fatal, silent",
    ],
    [{ SVC_LOG_FORMAT: "xml" }, "SVC_LOG_FORMAT: must be json or pretty"],
    [{ SVC_ACCESS_LOG: "maybe" }, "SVC_ACCESS_LOG: must be on or off"],
  ])("refuses %o with a line naming the variable", (env, message) => {
    const parse = () => parseConfig({ SVC_ADMIN_TOKEN: ADMIN_TOKEN, ...env });
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(message);
  });

  it.each([
    [{}, { level: "info", format: "json", accessLog: true }],
    [{ SVC_DEV_MODE: "true" }, { level: "info", format: "pretty", accessLog: true }],
    [
      {
        SVC_DEV_MODE: "true",
        SVC_LOG_FORMAT: "json",
        SVC_LOG_LEVEL: "warn",
        SVC_ACCESS_LOG: "off",
      },
      { level: "warn", format: "json", accessLog: false },
    ],
  ])("reads %o as %o", (env, logging) => {
    expect(parseConfig({ SVC_ADMIN_TOKEN: ADMIN_TOKEN, ...env }).logging).toEqual(logging);
  });

  it("writes no access line with SVC_ACCESS_LOG=off, and nothing under the level", async () => {
    using dir = tempDir();
    await using quiet = await startLogged({
      SVC_DB_PATH: `${dir.path}/app.db`,
      SVC_ACCESS_LOG: "off",
    });
    expect((await fetch(`${quiet.url}/health`)).status).toBe(200);
    await using warnOnly = await startLogged({
      SVC_DB_PATH: `${dir.path}/other.db`,
      SVC_LOG_LEVEL: "warn",
    });
    expect((await fetch(`${warnOnly.url}/health`)).status).toBe(200);
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
    expect(quiet.log.lines().filter((line) => "status" in line)).toEqual([]);
    expect(warnOnly.log.lines().filter((line) => line.level === "info")).toEqual([]);
  });

  it("prints pretty lines in dev mode", async () => {
    using dir = tempDir();
    await using dev = await startLogged({
      SVC_DB_PATH: `${dir.path}/app.db`,
      SVC_DEV_MODE: "true",
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    const response = await fetch(`${dev.url}/health`);
    const requestId = response.headers.get("x-request-id") ?? "";
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
    const line = dev.log.raw.find((text) => text.includes(requestId));
    expect(line).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  GET /health 200 requestId=${requestId} method=GET route=/health status=200 durationMs=[\\d.]+ caller=none bytes=\\d+\\n$`,
      ),
    );
  });
});

describe("formatPretty", () => {
  it("shows time, level, message and fields, quoting values with spaces", () => {
    expect(
      formatPretty(
        '{"level":"warn","time":"2030-01-01T12:34:56.789Z","fn":"x","note":"two words","n":1,"msg":"hi"}\n',
        false,
      ),
    ).toBe('12:34:56.789 WARN  hi fn=x note="two words" n=1\n');
  });

  it("indents an error's stack under its line", () => {
    const text = formatPretty(
      JSON.stringify({
        level: "error",
        time: "2030-01-01T00:00:00.000Z",
        err: { type: "Error", message: "bad", stack: "Error: bad\n    at f (a.js:1:1)" },
        msg: "request failed",
      }),
      false,
    );
    expect(text).toBe(
      "00:00:00.000 ERROR request failed\n    Error: bad\n        at f (a.js:1:1)\n",
    );
  });

  it("passes a line that is not JSON as it is", () => {
    expect(formatPretty("plain\n", false)).toBe("plain\n");
  });
});

describe("batchLines", () => {
  it("hands the lines of one event-loop turn to the stream in one write", async () => {
    const writes: string[] = [];
    const stream = batchLines({ write: (text: string) => writes.push(text) });
    stream.write("a\n");
    stream.write("b\n");
    expect(writes).toEqual([]);
    await new Promise((resolveTurn) => setImmediate(resolveTurn));
    stream.write("c\n");
    stream.flush();
    expect(writes).toEqual(["a\nb\n", "c\n"]);
  });
});
