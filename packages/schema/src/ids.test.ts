import { describe, expect, it } from "vitest";
import { SchemaError } from "./errors.js";
import { assertValidId, generateId, isValidId } from "./ids.js";

describe("record ids", () => {
  it("generates 40 lowercase hex characters, different each time", () => {
    const ids = new Set(Array.from({ length: 1000 }, generateId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{40}$/);
  });

  it.each([
    ["too short", "abc"],
    ["upper case", "A".repeat(40)],
    ["not hex", "g".repeat(40)],
    ["too long", "a".repeat(41)],
    ["not a string", 42],
  ])("rejects an id that is %s with INVALID_ID", (_label, value) => {
    expect(isValidId(value)).toBe(false);
    expect(() => assertValidId(value)).toThrow(SchemaError);
    try {
      assertValidId(value);
    } catch (error) {
      expect((error as SchemaError).code).toBe("INVALID_ID");
      expect((error as SchemaError).status).toBe(400);
    }
  });

  it("accepts a well-formed id", () => {
    expect(assertValidId("0123456789abcdef0123456789abcdef01234567")).toHaveLength(40);
  });
});
