import { ITEM_COUNT } from "./items.js";
import type { BaselineId } from "./report.js";

/** The list path of case C and case 3. */
export const LIST_PATH = `/api/entities/Item?limit=${ITEM_COUNT}`;

/** One measured case: the request, and what its answer must look like. */
export interface CaseSpec {
  readonly id: string;
  readonly label: string;
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly body?: string;
  readonly target?: { readonly baseline: BaselineId; readonly ratio: number };
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

// Baselines A and B get the very request the svc function cases send, so the
// only difference is the work behind it.
export const baselineCases: readonly (CaseSpec & { readonly script: string })[] = [
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
];

export const svcCases: readonly CaseSpec[] = [
  {
    id: "1",
    label: "svc POST /api/fn/touch (insert one row)",
    method: "POST",
    path: "/api/fn/touch",
    body: "{}",
    target: { baseline: "B", ratio: 0.8 },
    check: expectInsertedId,
  },
  {
    id: "2",
    label: "svc POST /api/fn/ping (trivial query)",
    method: "POST",
    path: "/api/fn/ping",
    body: "{}",
    target: { baseline: "B", ratio: 0.9 },
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
    target: { baseline: "2", ratio: 0.9 },
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
    target: { baseline: "2", ratio: 0.9 },
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
    target: { baseline: "2", ratio: 0.9 },
    check: expectJSON({ pong: true }),
  },
  {
    id: "3",
    label: `svc GET ${LIST_PATH}`,
    method: "GET",
    path: LIST_PATH,
    target: { baseline: "C", ratio: 0.6 },
    check: expectRows,
  },
];
