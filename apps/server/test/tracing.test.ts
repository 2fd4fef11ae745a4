import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { matchTarget, testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../src/start-server.js";
import { appServerPerTest } from "./app-server.js";
import { ADMIN_TOKEN, databaseEnv, startLoopbackServer, TODO_MANIFEST } from "./fixtures.js";

// What an application's `--import ./otel.mjs` does with the SDK: a provider
// and a context manager, registered globally. svc itself only calls the API.
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
});

/** The todo manifest with one plain `.mjs` mutation that inserts a todo for its caller. */
function writeApp(dir: string): string {
  const manifest = JSON.parse(readFileSync(TODO_MANIFEST, "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "svc.json"), JSON.stringify({ ...manifest, functions: "functions" }));
  mkdirSync(join(dir, "functions"));
  writeFileSync(
    join(dir, "functions", "addTodo.mjs"),
    `export default { type: "mutation", handler: async (ctx, args) =>
      ctx.db.insert("Todo", { title: args.title, done: false, priority: "low" }) };`,
  );
  writeFileSync(
    join(dir, "functions", "failing.mjs"),
    `export default { type: "query", handler: async () => { throw new Error("no"); } };`,
  );
  return join(dir, "svc.json");
}

/** Spans are exported when they end; the server span ends when the response closes. */
async function spansOf(traceId: string, count: number): Promise<ReadableSpan[]> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const spans = exporter
      .getFinishedSpans()
      .filter((span) => span.spanContext().traceId === traceId);
    if (spans.length >= count) return spans;
    await new Promise((resolveWait) => setTimeout(resolveWait, 10));
  }
  throw new Error(`fewer than ${count} spans in trace ${traceId}`);
}

/** The server span of the request with this id, once it has ended. */
async function serverSpan(requestId: string | null): Promise<ReadableSpan> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const found = exporter
      .getFinishedSpans()
      .find(
        (span) => span.kind === SpanKind.SERVER && span.attributes["svc.request_id"] === requestId,
      );
    if (found !== undefined) return found;
    await new Promise((resolveWait) => setTimeout(resolveWait, 10));
  }
  throw new Error(`no server span for request ${requestId}`);
}

/** The one span named `name` (with these attributes). */
function only(spans: readonly ReadableSpan[], name: string, attributes: object = {}): ReadableSpan {
  const found = spans.filter(
    (span) =>
      span.name === name && expect.objectContaining(attributes).asymmetricMatch(span.attributes),
  );
  expect(found, `${name} ${JSON.stringify(attributes)}`).toHaveLength(1);
  return found[0] as ReadableSpan;
}

function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

describe.each(testDatabases())("spans on $name", (database) => {
  const app = appServerPerTest(database, {
    scope: "suite",
    writeApp,
    start: ({ manifest, target }) =>
      startLoopbackServer({
        SVC_MANIFEST: manifest,
        SVC_ADMIN_TOKEN: ADMIN_TOKEN,
        SVC_RATE_LIMIT: "off",
        SVC_LOG_LEVEL: "silent",
        ...databaseEnv(target),
      }),
  });
  let server: RunningServer;
  let token: string;

  beforeAll(async () => {
    server = app.server;
    const registered = await fetch(`${server.url}/api/auth/password/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "tracer@example.com", password: "correct horse battery" }),
    });
    expect(registered.status).toBe(200);
    token = ((await registered.json()) as { token: string }).token;
  });
  beforeEach(() => exporter.reset());

  it("traces a function call: request, function run, transaction, statement and policy checks", async () => {
    const response = await fetch(`${server.url}/api/fn/addTodo`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "traced" }),
    });
    expect(response.status).toBe(200);
    const requestId = response.headers.get("x-request-id");
    const request = await serverSpan(requestId);
    const { traceId, spanId: requestSpanId } = request.spanContext();
    const spans = await spansOf(traceId, 6);

    const http = only(spans, "POST /api/fn/:name");
    expect(http.kind).toBe(SpanKind.SERVER);
    expect(http.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/api/fn/:name",
      "http.response.status_code": 200,
      "svc.caller": "session",
      "svc.request_id": requestId,
    });
    expect(parentOf(http)).toBeUndefined();
    expect(http.spanContext().spanId).toBe(requestSpanId);

    const run = only(spans, "function addTodo", {
      "svc.function.name": "addTodo",
      "svc.function.type": "mutation",
    });
    expect(parentOf(run)).toBe(requestSpanId);
    const transaction = only(spans, "store.transaction");
    expect(parentOf(transaction)).toBe(run.spanContext().spanId);
    expect(transaction.attributes["db.system.name"]).toBe(
      matchTarget(app.target, { sqlite: () => "sqlite", postgres: () => "postgresql" }),
    );
    const insert = only(spans, "store.insert", { "svc.entity": "Todo" });
    expect(parentOf(insert)).toBe(transaction.spanContext().spanId);
    for (const stage of ["entity", "row"]) {
      const check = only(spans, "policy.check", {
        "svc.entity": "Todo",
        "svc.policy.action": "insert",
        "svc.policy.stage": stage,
        "svc.policy.allowed": true,
      });
      expect(parentOf(check)).toBe(insert.spanContext().spanId);
    }
    // Nothing of the caller's token or arguments in any attribute.
    const attributes = JSON.stringify(spans.map((span) => span.attributes));
    expect(attributes).not.toContain(token);
    expect(attributes).not.toContain("traced");
  });

  it("marks a failing function's span and the request's as errors, with the code only", async () => {
    const response = await fetch(`${server.url}/api/fn/failing`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(500);
    await serverSpan(response.headers.get("x-request-id"));
    const spans = exporter.getFinishedSpans();
    const run = only(spans, "function failing");
    expect(run.status).toEqual({ code: SpanStatusCode.ERROR, message: "FUNCTION_FAILED" });
    const request = only(spans, "POST /api/fn/:name");
    expect(request.status.code).toBe(SpanStatusCode.ERROR);
    expect(parentOf(run)).toBe(request.spanContext().spanId);
  });

  it("names a read's policy check and statement, with the row filter it applied", async () => {
    const response = await fetch(`${server.url}/api/entities/Todo`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    await serverSpan(response.headers.get("x-request-id"));
    const spans = exporter.getFinishedSpans();
    const query = only(spans, "store.query", { "svc.entity": "Todo" });
    const check = only(spans, "policy.check", {
      "svc.policy.action": "read",
      "svc.policy.row_filter": true,
    });
    expect(parentOf(check)).toBe(query.spanContext().spanId);
    expect(parentOf(query)).toBe(only(spans, "GET /api/entities/:entity").spanContext().spanId);
  });
});
