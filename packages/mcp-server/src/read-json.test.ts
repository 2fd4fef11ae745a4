import { describe, expect, it } from "vitest";
import { exceedsByteLimit, readJson } from "./read-json.js";

const limits = { maxBytes: 1_000, maxDepth: 4 };

describe("readJson", () => {
  it("parses text and UTF-8 bytes", () => {
    expect(readJson('{"a":[1]}', limits)).toEqual({ ok: true, value: { a: [1] } });
    expect(readJson(new TextEncoder().encode('{"é":1}'), limits)).toEqual({
      ok: true,
      value: { é: 1 },
    });
  });

  it.each([undefined, "", "{", "[1,]", new Uint8Array([0xc3])])("calls %j malformed", (body) => {
    expect(readJson(body, limits)).toEqual({ ok: false, reason: "malformed" });
  });

  it("refuses a body over the byte limit before parsing it", () => {
    expect(readJson(`"${"x".repeat(1_000)}"`, limits)).toEqual({ ok: false, reason: "too-large" });
  });

  it("allows maxDepth levels of nesting and refuses one more", () => {
    expect(readJson("[[[[1]]]]", limits).ok).toBe(true);
    expect(readJson("[[[[[1]]]]]", limits)).toEqual({ ok: false, reason: "too-deep" });
    expect(readJson('{"a":{"b":{"c":{"d":{}}}}}', limits)).toEqual({
      ok: false,
      reason: "too-deep",
    });
  });

  it("survives nesting far deeper than the stack", () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    expect(readJson(deep, { maxBytes: 1_000_000, maxDepth: 64 })).toEqual({
      ok: false,
      reason: "too-deep",
    });
  });

  it("drops own __proto__ keys", () => {
    const result = readJson('{"a":{"__proto__":{"polluted":true},"b":1}}', limits);
    expect(result).toEqual({ ok: true, value: { a: { b: 1 } } });
    expect(Object.hasOwn({}, "polluted")).toBe(false);
  });
});

describe("exceedsByteLimit", () => {
  it.each([
    ["abc", 3, false],
    ["abcd", 3, true],
    ["ééé", 6, false],
    ["éééé", 7, true],
    ["€", 2, true],
  ])("%j over %i bytes is %s", (text, limit, expected) => {
    expect(exceedsByteLimit(text, limit)).toBe(expected);
    expect(exceedsByteLimit(new TextEncoder().encode(text), limit)).toBe(expected);
  });
});
