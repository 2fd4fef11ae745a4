import { describe, expect, it } from "vitest";
import { formatJSON } from "./format-json.js";

describe("formatJSON", () => {
  it.each([
    [{ a: 1, b: [1, 2], c: { d: "e" } }],
    [[]],
    [{}],
    ["text"],
    [{ nested: { deeper: { list: Array.from({ length: 40 }, (_, index) => ({ index })) } } }],
  ])("round-trips %j", (value) => {
    expect(JSON.parse(formatJSON(value))).toEqual(value);
  });

  it("keeps what fits on one line and expands the rest", () => {
    const text = formatJSON({ short: { a: 1 }, long: { text: "x".repeat(100) } });
    expect(text).toBe(
      `{\n  "short": { "a": 1 },\n  "long": {\n    "text": "${"x".repeat(100)}"\n  }\n}\n`,
    );
  });

  it("keeps the whole value on one line when it fits", () => {
    expect(formatJSON({ a: [1, 2], b: {} })).toBe(`{ "a": [1, 2], "b": {} }\n`);
  });

  it("drops undefined members as JSON.stringify does", () => {
    expect(formatJSON({ a: undefined, b: 1 })).toBe(`{ "b": 1 }\n`);
  });

  it("never exceeds the width where a break is possible", () => {
    const text = formatJSON(
      { items: Array.from({ length: 30 }, (_, index) => `item-${index}`) },
      40,
    );
    for (const line of text.split("\n")) expect(line.length).toBeLessThanOrEqual(40);
  });
});
