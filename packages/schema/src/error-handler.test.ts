import { describe, expect, it } from "vitest";
import { defineErrors } from "./define-errors.js";
import { type ErrorResponseTarget, errorHandler, sendErrorResponse } from "./error-handler.js";
import { toErrorResponse } from "./wire-error.js";

class TestError extends defineErrors("TestError", {
  RATE_LIMITED: { status: 429, message: "Slow down." },
  SIGNED_OUT: { status: 401, message: "Signed out." },
  UPSTREAM_FAILED: { status: 502, message: "The upstream failed." },
}) {}

/** A recording stand-in for Node's ServerResponse: the handler's whole contract with it. */
class RecordingResponse implements ErrorResponseTarget {
  headersSent = false;
  statusCode = 200;
  body: string | undefined;
  ended = false;
  readonly headers = new Map<string, number | string | readonly string[]>();

  getHeader(name: string): number | string | readonly string[] | undefined {
    return this.headers.get(name.toLowerCase());
  }
  setHeader(name: string, value: number | string | readonly string[]): void {
    if (this.headersSent) throw new Error("headers already sent");
    this.headers.set(name.toLowerCase(), value);
  }
  end(chunk?: string): void {
    this.ended = true;
    this.body = chunk;
    this.headersSent = true;
  }
}

function handle(error: unknown, res = new RecordingResponse()) {
  const reported: unknown[] = [];
  let nextCalled = false;
  errorHandler<string>({ onError: (e, req) => reported.push([e, req]) })(error, "req", res, () => {
    nextCalled = true;
  });
  return { res, reported, nextCalled };
}

describe("errorHandler", () => {
  it("has four parameters, so express mounts it as an error handler", () => {
    expect(errorHandler().length).toBe(4);
  });

  it("writes a wire error's status, envelope, details and headers as JSON", () => {
    const error = new TestError("RATE_LIMITED", {
      details: { retry_after_secs: 30 },
      headers: { "Retry-After": "30" },
    });
    const { res, reported, nextCalled } = handle(error);
    expect(res.statusCode).toBe(429);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("retry-after")).toBe("30");
    expect(JSON.parse(res.body ?? "")).toEqual({
      retry_after_secs: 30,
      error: { code: "RATE_LIMITED", message: "Slow down." },
    });
    expect(reported).toEqual([]);
    expect(nextCalled).toBe(false);
  });

  it("answers anything else with a generic 500 and reports it", () => {
    const secret = new Error("connection string postgres://user:pw@db");
    const { res, reported } = handle(secret);
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain("postgres://");
    expect(JSON.parse(res.body ?? "")).toEqual({
      error: { code: "INTERNAL_ERROR", message: "Something went wrong on the server." },
    });
    expect(reported).toEqual([[secret, "req"]]);
  });

  it("reports an exposed 5xx, whose cause belongs in the log", () => {
    const error = new TestError("UPSTREAM_FAILED", { cause: new Error("timeout") });
    const { res, reported } = handle(error);
    expect(res.statusCode).toBe(502);
    expect(reported).toEqual([[error, "req"]]);
  });

  it("only ends a response whose headers are already sent", () => {
    const res = new RecordingResponse();
    res.end("partial");
    res.ended = false;
    handle(new TestError("SIGNED_OUT"), res);
    expect(res.ended).toBe(true);
    expect(res.statusCode).toBe(200);
  });

  it("adds Set-Cookie to the cookies already set instead of replacing them", () => {
    const res = new RecordingResponse();
    res.setHeader("Set-Cookie", "a=1");
    handle(new TestError("SIGNED_OUT", { headers: { "Set-Cookie": ["s=; Max-Age=0"] } }), res);
    expect(res.headers.get("set-cookie")).toEqual(["a=1", "s=; Max-Age=0"]);
  });
});

describe("sendErrorResponse", () => {
  it("writes route headers first; the error's own headers win", () => {
    const res = new RecordingResponse();
    const response = toErrorResponse(
      new TestError("RATE_LIMITED", { headers: { "Retry-After": "9" } }),
    );
    sendErrorResponse(res, response, {
      "Access-Control-Allow-Origin": "*",
      "Retry-After": "1",
    });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("retry-after")).toBe("9");
    expect(res.statusCode).toBe(429);
  });
});
