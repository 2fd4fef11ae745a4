import { describe, expect, it } from "vitest";
import {
  acceptsJson,
  createHeaderLookup,
  isJsonContentType,
  normalizeOrigin,
} from "./http-headers.js";

describe("createHeaderLookup", () => {
  it("finds headers in any case and joins lists", () => {
    const header = createHeaderLookup({ Accept: ["a", "b"], "X-One": "1", skipped: undefined });
    expect(header("accept")).toBe("a, b");
    expect(header("x-ONE")).toBe("1");
    expect(header("skipped")).toBeUndefined();
  });
});

describe("acceptsJson", () => {
  it.each([
    [undefined, true],
    ["", true],
    ["application/json, text/event-stream", true],
    ["text/event-stream, application/json", true],
    ["APPLICATION/JSON; charset=utf-8", true],
    ["*/*", true],
    ["application/*;q=0.5", true],
    ["text/event-stream", false],
    ["application/json;q=0", false],
    ["text/html, application/xml", false],
  ])("%j -> %s", (accept, expected) => {
    expect(acceptsJson(accept)).toBe(expected);
  });
});

describe("isJsonContentType", () => {
  it.each([
    [undefined, true],
    ["application/json", true],
    ["Application/JSON; charset=utf-8", true],
    ["text/plain", false],
    ["multipart/form-data; boundary=x", false],
  ])("%j -> %s", (contentType, expected) => {
    expect(isJsonContentType(contentType)).toBe(expected);
  });
});

describe("normalizeOrigin", () => {
  it.each([
    ["http://localhost:5173", "http://localhost:5173"],
    ["HTTPS://Example.COM:443/", "https://example.com"],
    ["https://example.com/path", "https://example.com"],
    ["null", undefined],
    ["localhost", undefined],
    ["file:///etc/passwd", undefined],
  ])("%j -> %j", (origin, expected) => {
    expect(normalizeOrigin(origin)).toBe(expected);
  });
});
