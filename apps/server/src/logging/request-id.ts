import { randomFillSync } from "node:crypto";

/** What an incoming `X-Request-Id` may be: 1-128 of `A-Z a-z 0-9 . _ -`. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Random bytes drawn in batches: one system call per 455 ids, not one per request. */
const pool = Buffer.alloc(4095);
let offset = pool.length;

/** A new request id: 12 URL-safe characters (72 random bits). */
export function newRequestId(): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString("base64url", offset, offset + 9);
  offset += 9;
  return id;
}

/**
 * The id a proxy in front gave the request (`X-Request-Id`), when it is
 * one value of 1-128 characters of `A-Z a-z 0-9 . _ -`; else undefined
 * (a new id is made). Read only when the proxy is trusted (`SVC_TRUST_PROXY`).
 */
export function incomingRequestId(header: string | string[] | undefined): string | undefined {
  return typeof header === "string" && SANE_REQUEST_ID.test(header) ? header : undefined;
}
