import pg from "pg";
import { describe, expect, it } from "vitest";
import { openPostgres, parseTimestamptz } from "./pg.js";

describe("openPostgres", () => {
  it.each([
    ["2024-05-01 10:00:00+00", "2024-05-01T10:00:00.000Z"],
    ["2024-05-01 10:00:00.5+00", "2024-05-01T10:00:00.500Z"],
    ["2024-05-01 10:00:00.123456+00", "2024-05-01T10:00:00.123Z"],
    ["2024-05-01 12:30:00+02:30", "2024-05-01T10:00:00.000Z"],
    ["2024-05-01 09:00:00-01", "2024-05-01T10:00:00.000Z"],
    ["0001-01-01 00:00:00+00", "0001-01-01T00:00:00.000Z"],
    ["1900-01-01 00:09:21+00:09:21", "1900-01-01T00:00:00.000Z"],
    ["9999-12-31 23:59:59.999+00", "9999-12-31T23:59:59.999Z"],
    ["2024-05-01 10:00:00.1+00", "2024-05-01T10:00:00.100Z"],
    ["2024-05-01 10:00:00.12+00", "2024-05-01T10:00:00.120Z"],
    ["2024-05-01 10:00:00.999999+00", "2024-05-01T10:00:00.999Z"],
    ["2024-05-01 10:00:00+00:30", "2024-05-01T09:30:00.000Z"],
  ])("parses timestamptz text %s as %s", (text, iso) => {
    expect(parseTimestamptz(text)).toBe(iso);
  });

  it("gives what Date gives for UTC values, fast path and all", () => {
    // Millisecond instants across years, with 0 to 6 fraction digits as Postgres prints them.
    for (let index = 0; index < 2_000; index += 1) {
      const ms = Math.floor(((index * 7_919_993_311) % 253_402_300_799_000) / 7) * 7;
      const iso = new Date(ms).toISOString();
      const micros = String((ms % 1000) * 1000 + (index % 1000)).padStart(6, "0");
      const digits = micros.replace(/0+$/, "");
      const text = `${iso.slice(0, 10)} ${iso.slice(11, 19)}${digits === "" ? "" : `.${digits}`}+00`;
      expect(parseTimestamptz(text)).toBe(iso);
    }
  });

  it("leaves pg's global type parsers alone", async () => {
    const before = pg.types.getTypeParser(20, "text");
    const database = openPostgres("postgres://nobody@127.0.0.1:1/none");
    expect(pg.types.getTypeParser(20, "text")).toBe(before);
    expect(pg.types.getTypeParser(20, "text")("12")).toBe("12");
    await database.close();
    await database.close();
  });
});
