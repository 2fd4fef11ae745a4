import { describe, expect, it } from "vitest";
import { FunctionsError } from "./errors.js";
import { toJSONResult } from "./to-json-result.js";

describe("toJSONResult", () => {
  it("turns undefined into null", () => {
    expect(toJSONResult(undefined, "f")).toBeNull();
  });

  it("returns plain JSON values as they are, without a copy", () => {
    const value = { rows: [{ id: "a", n: 1, ok: true, note: null }], nextCursor: null };
    expect(toJSONResult(value, "f")).toBe(value);
    expect(toJSONResult("text", "f")).toBe("text");
  });

  it.each([
    ["a Date", { at: new Date("2024-01-02T03:04:05.000Z") }, { at: "2024-01-02T03:04:05.000Z" }],
    ["an undefined property", { a: 1, b: undefined }, { a: 1 }],
    ["an undefined array item", [1, undefined], [1, null]],
    ["NaN", { n: Number.NaN }, { n: null }],
    ["a class instance", new Map([["a", 1]]), {}],
    ["a toJSON method", { toJSON: () => "custom" }, "custom"],
  ])("normalizes %s the way JSON does", (_case, value, expected) => {
    expect(toJSONResult(value, "f")).toEqual(expected);
  });

  it("accepts a shared (non-cyclic) object referenced twice", () => {
    const shared = { a: 1 };
    expect(toJSONResult({ x: shared, y: shared }, "f")).toEqual({ x: { a: 1 }, y: { a: 1 } });
  });

  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;

  it.each([
    ["a bigint", { n: 1n }],
    ["a cycle", cyclic],
    ["a function", () => 1],
    ["a symbol", Symbol("s")],
  ])("rejects %s with INVALID_RESULT", (_case, value) => {
    let caught: unknown;
    try {
      toJSONResult(value, "listTodos");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FunctionsError);
    expect(caught).toMatchObject({
      code: "INVALID_RESULT",
      status: 500,
      message: "Function listTodos returned a value that cannot be sent as JSON.",
    });
  });
});
