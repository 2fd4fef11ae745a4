import { describe, expect, it } from "vitest";
import { isStorageFull } from "./storage-full.js";
import { toErrorResponse } from "./wire-error.js";

// A full disk (or database) reaches the client as 507 STORAGE_FULL with
// Retry-After, whichever driver or package raised it. Regression: it was a
// 500 DATABASE_ERROR on writes and a 500 INTERNAL_ERROR on sign-in (the
// rate-limit store's raw SQLITE_FULL).

const driverError = (code: string, message = "driver failure"): Error =>
  Object.assign(new Error(message), { code });

class PackageError extends Error {
  readonly expose = true as const;
  constructor(
    readonly code: string,
    readonly status: number,
    options: { cause?: unknown } = {},
  ) {
    super(`${code} happened.`, options);
  }
}

describe("isStorageFull", () => {
  it.each([
    ["better-sqlite3 SQLITE_FULL", driverError("SQLITE_FULL", "database or disk is full"), true],
    ["a WAL index that cannot grow", driverError("SQLITE_IOERR_SHMSIZE"), true],
    ["Postgres SQLSTATE 53100 (disk_full)", driverError("53100"), true],
    ["ENOSPC from the file system", driverError("ENOSPC"), true],
    ["EDQUOT (quota exceeded)", driverError("EDQUOT"), true],
    [
      "a plain SQLITE_IOERR_WRITE (could be a failing disk)",
      driverError("SQLITE_IOERR_WRITE"),
      false,
    ],
    ["Postgres 53200 (out of memory)", driverError("53200"), false],
    ["a unique violation", driverError("SQLITE_CONSTRAINT_UNIQUE"), false],
    ["no code", new Error("boom"), false],
    ["not an object", "SQLITE_FULL", false],
  ])("%s → %s", (_label, error, expected) => {
    expect(isStorageFull(error)).toBe(expected);
  });

  it("follows the cause chain, and stops on a cycle", () => {
    const wrapped = new Error("outer", {
      cause: new Error("middle", { cause: driverError("53100") }),
    });
    expect(isStorageFull(wrapped)).toBe(true);
    const cycle: { code: string; cause?: unknown } = { code: "X" };
    cycle.cause = cycle;
    expect(isStorageFull(cycle)).toBe(false);
  });
});

describe("toErrorResponse on a full storage", () => {
  const storageFull = {
    status: 507,
    body: {
      error: { code: "STORAGE_FULL", message: "The server's storage is full; try again later." },
      retry_after_secs: 30,
    },
    headers: { "Retry-After": "30" },
    internal: false,
  };

  it.each([
    ["a raw SQLITE_FULL (a package's own table)", driverError("SQLITE_FULL")],
    ["a raw Postgres 53100", driverError("53100")],
    [
      "a package's 500 wrapping it (the store's DATABASE_ERROR)",
      new PackageError("DATABASE_ERROR", 500, { cause: driverError("SQLITE_FULL") }),
    ],
    ["a package's own STORAGE_FULL", new PackageError("STORAGE_FULL", 507)],
  ])("answers 507 STORAGE_FULL with Retry-After for %s", (_label, error) => {
    expect(toErrorResponse(error)).toEqual(storageFull);
  });

  it("leaves a client error alone even when a full disk is its cause", () => {
    const error = new PackageError("RATE_LIMITED", 429, { cause: driverError("SQLITE_FULL") });
    expect(toErrorResponse(error).status).toBe(429);
  });
});
