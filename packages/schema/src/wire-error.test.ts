import { describe, expect, it } from "vitest";
import { isWireError, toErrorResponse } from "./wire-error.js";

class TestWireError extends Error {
  readonly expose = true as const;
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

describe("isWireError", () => {
  it.each([
    ["a 429 with expose", new TestWireError("RATE_LIMITED", 429, "Slow down."), true],
    ["a plain Error", new Error("boom"), false],
    [
      "a non-Error object shaped like one",
      { code: "X", status: 400, expose: true, message: "m" },
      false,
    ],
    [
      "expose false",
      Object.assign(new Error("m"), { code: "X", status: 400, expose: false }),
      false,
    ],
    ["a status outside 400..599", new TestWireError("X", 302, "m"), false],
    ["a fractional status", new TestWireError("X", 400.5, "m"), false],
    [
      "a numeric code",
      Object.assign(new Error("m"), { code: 7, status: 400, expose: true }),
      false,
    ],
  ])("%s → %s", (_label, error, expected) => {
    expect(isWireError(error)).toBe(expected);
  });
});

describe("toErrorResponse", () => {
  it("keeps a wire error's code, status, message, details (beside the envelope) and headers", () => {
    const error = new TestWireError(
      "RATE_LIMITED",
      429,
      "Too many requests.",
      { retry_after_secs: 42 },
      { "Retry-After": "42" },
    );
    expect(toErrorResponse(error)).toStrictEqual({
      status: 429,
      body: {
        retry_after_secs: 42,
        error: { code: "RATE_LIMITED", message: "Too many requests." },
      },
      headers: { "Retry-After": "42" },
      internal: false,
    });
  });

  it("never lets a detail replace the envelope", () => {
    const error = new TestWireError("X", 400, "Bad.", { error: "overwritten?" });
    expect(toErrorResponse(error).body).toStrictEqual({ error: { code: "X", message: "Bad." } });
  });

  it("maps an http-errors 4xx to BAD_REQUEST and a URIError to INVALID_PATH", () => {
    expect(toErrorResponse(Object.assign(new Error("x"), { status: 415 })).body.error.code).toBe(
      "BAD_REQUEST",
    );
    expect(toErrorResponse(Object.assign(new URIError("x"), { status: 400 })).body.error.code).toBe(
      "INVALID_PATH",
    );
  });

  it("answers anything else with a generic 500 that keeps nothing of the original", () => {
    const response = toErrorResponse(new Error("select * from secrets where token = 'abc'"));
    expect(response).toStrictEqual({
      status: 500,
      body: { error: { code: "INTERNAL_ERROR", message: "Something went wrong on the server." } },
      headers: {},
      internal: true,
    });
  });
});
