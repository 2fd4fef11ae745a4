import { describe, expect, it } from "vitest";
import { compileDecoder, encoderFor, inPlaceDecoder, rowDecoder } from "./codecs.js";

const fields = [
  { name: "title", kind: "string" },
  { name: "done", kind: "bool" },
  { name: "meta", kind: "json" },
  { name: "note", kind: "string" },
] as const;
const stored = () => ({ id: "i", title: "t", done: 1, meta: '{"a":[1]}', note: null });
const decoded = { id: "i", title: "t", done: true, meta: { a: [1] }, note: null };

describe("SQLite row codecs", () => {
  it.each([
    ["compiled", compileDecoder(fields)],
    ["in place", inPlaceDecoder(fields)],
  ])("decode bool and json, keep null and the column order (%s)", (_label, decode) => {
    expect(decode).not.toBeNull();
    const row = decode?.(stored());
    expect(row).toStrictEqual(decoded);
    expect(Object.keys(row ?? {})).toEqual(["id", "title", "done", "meta", "note"]);
    expect(decode?.({ ...stored(), done: 0, meta: null })).toMatchObject({
      done: false,
      meta: null,
    });
    expect(decode?.({ ...stored(), done: null })).toMatchObject({ done: null });
  });

  it("return the driver's row untouched when nothing needs decoding, and always on Postgres", () => {
    const row = stored();
    expect(rowDecoder([{ name: "title", kind: "string" }], "sqlite")(row)).toBe(row);
    expect(rowDecoder(fields, "postgres")(row)).toBe(row);
  });

  it.each([
    ["bool", "sqlite", true, 1],
    ["bool", "sqlite", false, 0],
    ["bool", "postgres", true, true],
    ["json", "sqlite", [1, { a: 2 }], '[1,{"a":2}]'],
    ["json", "postgres", [1], "[1]"],
    ["json", "postgres", null, null],
    ["datetime", "postgres", "2024-01-01T00:00:00.000Z", "2024-01-01T00:00:00.000Z"],
  ] as const)("encode %s on %s", (kind, dialect, value, encoded) => {
    expect(encoderFor(kind, dialect)(value)).toStrictEqual(encoded);
  });
});
