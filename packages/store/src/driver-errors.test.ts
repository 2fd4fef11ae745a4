import { describe, expect, it } from "vitest";
import { databaseError } from "./driver-errors.js";
import { StoreError } from "./errors.js";

// The store's wrapping of driver errors: a full disk is STORAGE_FULL (507)
// on either dialect, anything unexpected DATABASE_ERROR (500); the driver's
// error stays as `cause`. (Postgres cannot be filled up in a test without
// root, so its SQLSTATE is checked here; SQLite's is filled for real in
// test/storage-full.test.ts.)

const driverError = (code: string): Error => Object.assign(new Error("driver text"), { code });

describe("databaseError", () => {
  it.each([
    ["Postgres disk_full (SQLSTATE 53100)", "53100", "STORAGE_FULL", 507],
    ["SQLite SQLITE_FULL", "SQLITE_FULL", "STORAGE_FULL", 507],
    ["SQLite SQLITE_IOERR_SHMSIZE", "SQLITE_IOERR_SHMSIZE", "STORAGE_FULL", 507],
    ["Postgres connection failure (08006)", "08006", "DATABASE_ERROR", 500],
    ["SQLite SQLITE_IOERR_WRITE", "SQLITE_IOERR_WRITE", "DATABASE_ERROR", 500],
  ])("wraps %s as %s", (_label, driverCode, code, status) => {
    const cause = driverError(driverCode);
    const wrapped = databaseError(cause);
    expect(wrapped).toBeInstanceOf(StoreError);
    expect(wrapped).toMatchObject({ code, status, expose: true, cause });
    expect(wrapped.message).not.toContain("driver text");
  });
});
