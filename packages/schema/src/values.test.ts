import { describe, expect, it } from "vitest";
import type { FieldDef } from "./manifest.js";
import { checkFieldValue, normalizeDatetime } from "./values.js";

const base = { optional: false, unique: false } as const;
const fields = {
  string: { ...base, name: "s", type: "string", owner: false },
  int: { ...base, name: "i", type: "int" },
  float: { ...base, name: "f", type: "float" },
  bool: { ...base, name: "b", type: "bool" },
  datetime: { ...base, name: "d", type: "datetime", defaultNow: false },
  json: { ...base, name: "j", type: "json" },
  id: { ...base, name: "r", type: "id", target: "Other" },
  enum: { ...base, name: "e", type: "enum", values: ["low", "high"] },
  file: { ...base, name: "a", type: "file" },
} satisfies Record<FieldDef["type"], FieldDef>;

const ID = "0123456789abcdef0123456789abcdef01234567";

describe("checkFieldValue", () => {
  it.each([
    ["string", "hello", "hello"],
    ["string", "", ""],
    ["string", "emoji 😀", "emoji 😀"],
    ["int", 42, 42],
    ["int", -0, 0],
    ["int", Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
    ["float", 1.5, 1.5],
    ["float", 3, 3],
    ["float", -0, 0],
    ["bool", true, true],
    ["bool", false, false],
    ["datetime", "2024-05-01T12:00:00Z", "2024-05-01T12:00:00.000Z"],
    ["datetime", "2024-05-01T12:00:00.5+02:00", "2024-05-01T10:00:00.500Z"],
    ["datetime", "2024-05-01T12:00Z", "2024-05-01T12:00:00.000Z"],
    ["datetime", "2024-02-29T23:59:59.123456-05:30", "2024-03-01T05:29:59.123Z"],
    ["json", { b: 1, a: [1, "x", null, { z: true }] }, { a: [1, "x", null, { z: true }], b: 1 }],
    ["json", [1, 2], [1, 2]],
    ["json", "text", "text"],
    ["json", 0, 0],
    ["json", false, false],
    ["id", ID, ID],
    ["enum", "high", "high"],
    ["file", ID, ID],
  ] as const)("accepts a %s value %j", (kind, input, expected) => {
    expect(checkFieldValue(fields[kind], input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ["string", 1, "must be a string"],
    ["string", "a\u0000b", "must not contain NUL characters"],
    ["string", "\ud800", "must be valid Unicode text"],
    ["int", 1.5, "must be an integer"],
    ["int", "1", "must be an integer"],
    ["int", 2 ** 53, "must be a safe integer (at most 2^53 - 1 in size)"],
    ["float", Number.NaN, "must be a finite number"],
    ["float", Number.POSITIVE_INFINITY, "must be a finite number"],
    ["float", "1.5", "must be a finite number"],
    ["bool", 1, "must be true or false"],
    ["bool", "true", "must be true or false"],
    ["json", { a: undefined }, "must be a JSON value"],
    ["json", { a: Number.NaN }, "must hold only finite numbers"],
    ["json", new Date(0), "must be a JSON value"],
    ["json", [1n], "must be a JSON value"],
    ["json", () => 1, "must be a JSON value"],
    ["json", { "a\u0000": 1 }, "must not have object keys with NUL characters or invalid Unicode"],
    ["id", "abc", "must be a record id (40 lowercase hexadecimal characters)"],
    ["id", ID.toUpperCase(), "must be a record id (40 lowercase hexadecimal characters)"],
    ["enum", "medium", "must be one of low, high"],
    ["enum", 1, "must be one of low, high"],
    ["file", "../etc/passwd", "must be a file id (40 lowercase hexadecimal characters)"],
    ["file", 42, "must be a file id (40 lowercase hexadecimal characters)"],
  ] as const)("rejects a %s value: %s", (kind, input: unknown, reason) => {
    expect(checkFieldValue(fields[kind], input)).toEqual({
      ok: false,
      issue: { field: fields[kind].name, reason },
    });
  });

  it("sorts json object keys the way Postgres jsonb does: shorter first, then bytewise", () => {
    const result = checkFieldValue(fields.json, { bb: 1, a: 2, é: 3, B: 4, ab: 5 });
    expect(result.ok && Object.keys(result.value as object)).toEqual(["B", "a", "ab", "bb", "é"]);
  });

  it("rejects json nested past the depth limit", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(checkFieldValue(fields.json, deep)).toEqual({
      ok: false,
      issue: { field: "j", reason: "must not nest deeper than 64 levels" },
    });
  });

  it.each(Object.keys(fields) as (keyof typeof fields)[])(
    "treats null on a %s field as missing unless the field is optional",
    (kind) => {
      expect(checkFieldValue(fields[kind], null)).toEqual({
        ok: false,
        issue: { field: fields[kind].name, reason: "is required" },
      });
      expect(checkFieldValue({ ...fields[kind], optional: true }, null)).toEqual({
        ok: true,
        value: null,
      });
    },
  );
});

describe("normalizeDatetime", () => {
  it.each([
    ["no zone", "2024-05-01T12:00:00"],
    ["a date only", "2024-05-01"],
    ["a space separator", "2024-05-01 12:00:00Z"],
    ["February 30", "2024-02-30T00:00:00Z"],
    ["February 29 of a common year", "2023-02-29T00:00:00Z"],
    ["month 13", "2024-13-01T00:00:00Z"],
    ["hour 24", "2024-05-01T24:00:00Z"],
    ["second 60", "2024-05-01T12:00:60Z"],
    ["a bad offset", "2024-05-01T12:00:00+25:00"],
    ["a compact offset", "2024-05-01T12:00:00+0200"],
    ["a lower-case zone", "2024-05-01t12:00:00z"],
    ["a UTC year past 9999", "9999-12-31T23:00:00-05:00"],
    ["a UTC year before 0001", "0000-01-01T00:00:00Z"],
    ["free text", "yesterday"],
  ])("rejects %s", (_label, input) => {
    expect(normalizeDatetime(input)).toBeNull();
  });

  it.each([
    ["2000-01-01T00:00:00Z", "2000-01-01T00:00:00.000Z"],
    ["2000-01-01T00:00:00-00:00", "2000-01-01T00:00:00.000Z"],
    ["1999-12-31T23:30:00-01:00", "2000-01-01T00:30:00.000Z"],
    ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"],
    ["2000-02-29T00:00:00.1Z", "2000-02-29T00:00:00.100Z"],
  ])("normalizes %s to %s", (input, output) => {
    expect(normalizeDatetime(input)).toBe(output);
  });
});
