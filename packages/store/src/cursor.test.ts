import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "./cursor.js";

describe("page cursors", () => {
  it("round-trip the order, value and id as base64url text", () => {
    const position = { order: "title:desc", value: "a/b+c", id: "f".repeat(40) };
    const text = encodeCursor(position);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(text)).toEqual(position);
  });

  it.each([
    ["not a string", 42],
    ["not base64url", "a+b/c="],
    ["not JSON", Buffer.from("nope").toString("base64url")],
    ["a JSON array", Buffer.from("[1]").toString("base64url")],
    ["missing the id", Buffer.from('{"o":"id:asc"}').toString("base64url")],
    ["empty", ""],
  ])("reject text that is %s", (_label, text) => {
    expect(decodeCursor(text)).toBeNull();
  });
});
