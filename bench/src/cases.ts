import { ITEM_COUNT } from "./items.js";
import type { CaseTarget } from "./report.js";
import { TOUCH_PATH } from "./svc.js";

/** The list path of case C and case 3. */
export const LIST_PATH = `/api/entities/Item?limit=${ITEM_COUNT}`;

/** One measured case: the request, and what its answer must look like. */
export interface CaseSpec {
  readonly id: string;
  readonly label: string;
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly body?: string;
  /** For svc cases: what it is held to, each a baseline and the minimum ratio. */
  readonly targets?: readonly CaseTarget[];
  /** Which credential the svc case sends. Default the admin token. */
  readonly auth?: "admin" | "session" | "api-key" | "jwt";
  /** Returns why a probe answer is wrong, or undefined when it is right. */
  readonly check: (body: unknown) => string | undefined;
}

function expectJSON(expected: unknown): (body: unknown) => string | undefined {
  return (body) =>
    JSON.stringify(body) === JSON.stringify(expected)
      ? undefined
      : `expected ${JSON.stringify(expected)}, got ${JSON.stringify(body).slice(0, 200)}`;
}

function expectRows(body: unknown): string | undefined {
  if (!Array.isArray(body)) return `expected an array, got ${JSON.stringify(body).slice(0, 200)}`;
  return body.length === ITEM_COUNT ? undefined : `expected ${ITEM_COUNT} rows, got ${body.length}`;
}

function expectInsertedId(body: unknown): string | undefined {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === "string" ? undefined : `expected {id}, got ${JSON.stringify(body)}`;
}

/** A baseline: the script it runs and, when its case path does not answer GET, where to poll. */
export interface BaselineSpec extends CaseSpec {
  readonly script: string;
  readonly readyPath?: string;
}

// Baselines A, B, D and F get the very request the svc function cases send
// (D the body case 2 answers, so it can echo it), so the only difference is
// the work behind it.
export const baselineCases: readonly BaselineSpec[] = [
  {
    id: "A",
    label: "node:http hello world",
    script: "hello-http.ts",
    method: "POST",
    path: "/",
    body: "{}",
    check: expectJSON({ hello: "world" }),
  },
  {
    id: "B",
    label: "express 5 hello world",
    script: "hello-express.ts",
    method: "POST",
    path: "/",
    body: "{}",
    check: expectJSON({ hello: "world" }),
  },
  {
    id: "C",
    label: `node:http + better-sqlite3, ${ITEM_COUNT.toLocaleString("en-US")} rows`,
    script: "rows-sqlite.ts",
    method: "GET",
    path: LIST_PATH,
    check: expectRows,
  },
  {
    id: "D",
    label: "express 5 JSON echo",
    script: "echo-express.ts",
    readyPath: "/ready",
    method: "POST",
    path: "/",
    body: JSON.stringify({ pong: true }),
    check: expectJSON({ pong: true }),
  },
  {
    id: "E",
    label: `node:http, ${ITEM_COUNT.toLocaleString("en-US")} rows' JSON from memory`,
    script: "rows-memory.ts",
    method: "GET",
    path: LIST_PATH,
    check: expectRows,
  },
  {
    id: "F",
    label: "express 5 + better-sqlite3 insert in a transaction",
    script: "insert-express.ts",
    readyPath: "/ready",
    method: "POST",
    path: "/",
    body: "{}",
    check: expectInsertedId,
  },
];

export const svcCases: readonly CaseSpec[] = [
  {
    id: "1",
    label: "svc POST /api/fn/touch (insert one row)",
    method: "POST",
    path: TOUCH_PATH,
    body: "{}",
    targets: [
      { baseline: "B", ratio: 0.8 },
      { baseline: "F", ratio: 0.7 },
    ],
    check: expectInsertedId,
  },
  {
    id: "2",
    label: "svc POST /api/fn/ping (trivial query)",
    method: "POST",
    path: "/api/fn/ping",
    body: "{}",
    targets: [
      { baseline: "B", ratio: 0.9 },
      { baseline: "D", ratio: 0.8 },
      { baseline: "A", ratio: 0.6 },
    ],
    check: expectJSON({ pong: true }),
  },
  {
    // The same call as case 2 with a user's `svc_` session instead of the
    // admin token: what resolving a session costs (a hash and a key lookup).
    id: "4",
    label: "svc POST /api/fn/ping with a session token",
    method: "POST",
    path: "/api/fn/ping",
    body: "{}",
    auth: "session",
    targets: [{ baseline: "2", ratio: 0.9 }],
    check: expectJSON({ pong: true }),
  },
  {
    // The same call with the user's `pk.` API key: an HMAC and a key lookup.
    id: "5",
    label: "svc POST /api/fn/ping with an API key",
    method: "POST",
    path: "/api/fn/ping",
    body: "{}",
    auth: "api-key",
    targets: [{ baseline: "2", ratio: 0.9 }],
    check: expectJSON({ pong: true }),
  },
  {
    // The same call with a JWT minted from the session: an HMAC, no lookup.
    id: "6",
    label: "svc POST /api/fn/ping with a JWT",
    method: "POST",
    path: "/api/fn/ping",
    body: "{}",
    auth: "jwt",
    targets: [{ baseline: "2", ratio: 0.9 }],
    check: expectJSON({ pong: true }),
  },
  {
    id: "3",
    label: `svc GET ${LIST_PATH}`,
    method: "GET",
    path: LIST_PATH,
    targets: [
      { baseline: "C", ratio: 0.6 },
      { baseline: "E", ratio: 0.6 },
    ],
    check: expectRows,
  },
];
