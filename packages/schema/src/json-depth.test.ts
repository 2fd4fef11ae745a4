import { describe, expect, it } from "vitest";
import { exceedsDepth } from "./json-depth.js";

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { k: value };
  return value;
}

describe("exceedsDepth", () => {
  it.each([
    [0, false],
    [64, false],
    [65, true],
    [300_000, true],
  ])("a value nested %i levels exceeds 64: %s", (depth, expected) => {
    expect(exceedsDepth(nested(depth), 64)).toBe(expected);
  });

  it("treats scalars and null as depth zero", () => {
    expect(exceedsDepth("x", 0)).toBe(false);
    expect(exceedsDepth(null, 0)).toBe(false);
  });
});
