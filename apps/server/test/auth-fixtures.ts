import { createServer, type IncomingMessage } from "node:http";
import type { TestDatabase, TestDatabaseTarget } from "@svc/tooling/databases";
import { closeServer, listenOnLoopback } from "@svc/tooling/http-server";
import { expect } from "vitest";
import { type DisposableServer, startTestServer } from "./fixtures.js";

/** 2030-01-01T00:00:00Z: a fixed start, so stamped times are exact. */
export const CLOCK_START = Date.UTC(2030, 0, 1);

/** The manifest's trusted origin (`auth.trustedOrigins`). */
export const TRUSTED_ORIGIN = "http://localhost:5173";

/** A clock that only moves when a test moves it. */
export interface TestClock {
  now(): number;
  advance(ms: number): void;
}

/** A frozen clock starting at `start` (default `CLOCK_START`). */
export function createClock(start: number = CLOCK_START): TestClock {
  let current = start;
  return {
    now: () => current,
    advance(ms) {
      current += ms;
    },
  };
}

/** A running server that closes itself at the end of its `await using` scope. */
export type AuthTestServer = DisposableServer & {
  readonly clock: TestClock;
  /** Unexpected errors the server logged (each answered 500), for assertions and reports. */
  readonly internalErrors: unknown[];
};

/**
 * Boots the real server on an ephemeral loopback port with the todo
 * manifest, the admin token and `clock` as the server's `now` (auth-core
 * and the rate limiters read it). `env` adds or overrides variables.
 */
export async function startAuthServer(
  env: Record<string, string>,
  clock: TestClock = createClock(),
): Promise<AuthTestServer> {
  const internalErrors: unknown[] = [];
  const server = await startTestServer(env, {
    now: clock.now,
    onInternalError: (error) => internalErrors.push(error),
  });
  return Object.assign(server, { clock, internalErrors });
}

/** An isolated database for one test (or suite), dropped by its disposer. */
export async function createTestDatabase(
  database: TestDatabase,
): Promise<{ target: TestDatabaseTarget; [Symbol.asyncDispose](): Promise<void> }> {
  const target = await database.create();
  return { target, [Symbol.asyncDispose]: () => database.destroy(target) };
}

/** Distinct, deterministic email addresses: `label-1@example.com`, `label-2@...`. */
export function emailSequence(label: string): () => string {
  let next = 0;
  return () => {
    next += 1;
    return `${label}-${next}@example.com`;
  };
}

/** What a request sends besides method and path. */
export interface RequestOptions {
  readonly body?: unknown;
  /** A raw body sent as is (no content type unless `headers` gives one). */
  readonly rawBody?: string;
  /** A `svc_` token sent as `Authorization: Bearer`. */
  readonly token?: string;
  /** A `svc_` token sent as the `svc_session` cookie. */
  readonly cookie?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** fetch against the server with an optional JSON body, bearer and cookie. */
export function request(
  server: { url: string },
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie !== undefined) headers.cookie = `svc_session=${options.cookie}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(options.body);
  }
  return fetch(`${server.url}${path}`, { method, headers, ...(body !== undefined && { body }) });
}

/** POSTs a JSON body. */
export function post(
  server: { url: string },
  path: string,
  body: unknown = {},
  options: Omit<RequestOptions, "body"> = {},
): Promise<Response> {
  return request(server, "POST", path, { ...options, body });
}

/** Inserts a row through `POST /api/entities/<entity>` as `token`'s caller; expects 201 and returns its id. */
export async function insertRow(
  server: { url: string },
  entity: string,
  data: Record<string, unknown>,
  token: string,
): Promise<string> {
  const answer = await readJSON<{ id: string }>(
    post(server, `/api/entities/${entity}`, data, { token }),
  );
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.id;
}

/** A parsed response: status, headers and JSON body. */
export interface JSONResponse<T> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

/** Reads a response's JSON body. */
export async function readJSON<T = Record<string, unknown>>(
  response: Response | Promise<Response>,
): Promise<JSONResponse<T>> {
  const settled = await response;
  const text = await settled.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = { unparsed: text };
  }
  return { status: settled.status, headers: settled.headers, body: body as T };
}

/** The svc error envelope, with any extra body fields. */
export interface ErrorEnvelope {
  readonly error: { readonly code: string; readonly message: string };
  readonly [extra: string]: unknown;
}

/**
 * Reads an error answer and checks its shape: `{error: {code, message}}`
 * (plus extra fields such as `retry_after_secs`). Returns status and code
 * for one `toMatchObject`.
 */
export async function errorOf(response: Response | Promise<Response>): Promise<{
  status: number;
  code: string;
  message: string;
  body: ErrorEnvelope;
  headers: Headers;
}> {
  const { status, headers, body } = await readJSON<ErrorEnvelope>(response);
  expect(body.error, JSON.stringify(body)).toBeDefined();
  expect(Object.keys(body.error).sort()).toEqual(["code", "message"]);
  return { status, code: body.error.code, message: body.error.message, body, headers };
}

/** The `svc_session` `Set-Cookie` of a response, or undefined. */
export function sessionSetCookie(response: { headers: Headers }): string | undefined {
  return response.headers.getSetCookie().find((cookie) => cookie.startsWith("svc_session="));
}

/** The sign-in answer. */
export interface SignInBody {
  readonly token: string;
  readonly user_id: string;
  readonly expires_at: number;
}

/** Sends a magic code (dev mode, loopback) and verifies it; returns the sign-in answer. */
export async function signInWithMagicCode(
  server: { url: string },
  email: string,
): Promise<SignInBody> {
  const sent = await readJSON<{ dev_code?: string }>(
    post(server, "/api/auth/magic/send", { email }),
  );
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  const code = sent.body.dev_code;
  expect(code).toMatch(/^\d{6}$/);
  const verified = await readJSON<SignInBody>(
    post(server, "/api/auth/magic/verify", { email, code }),
  );
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  return verified.body;
}

/** Registers a password account; returns the sign-in answer. */
export async function registerPassword(
  server: { url: string },
  email: string,
  password = "correct horse battery",
): Promise<SignInBody> {
  const registered = await readJSON<SignInBody>(
    post(server, "/api/auth/password/register", { email, password }),
  );
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  return registered.body;
}

/** One request a stub HTTP server received. */
export interface StubRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

/** A local HTTP server standing in for an email webhook or a CAPTCHA provider. */
export interface HttpStub {
  readonly url: string;
  readonly requests: StubRequest[];
  /** Decides each answer; replace it to change the stub's behaviour mid-test. */
  respond: (request: StubRequest) => { status: number; body: unknown };
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts a stub on 127.0.0.1 with an ephemeral port; it answers 200 `{}` until told otherwise. */
export async function startHttpStub(
  respond: HttpStub["respond"] = () => ({ status: 200, body: {} }),
): Promise<HttpStub> {
  const stub = { requests: [] as StubRequest[], respond };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const received: StubRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      stub.requests.push(received);
      const answer = stub.respond(received);
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(JSON.stringify(answer.body));
    });
  });
  return Object.assign(stub, {
    url: await listenOnLoopback(server),
    [Symbol.asyncDispose]: () => closeServer(server),
  });
}
