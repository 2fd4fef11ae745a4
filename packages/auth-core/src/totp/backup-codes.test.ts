import { describe, expect, it } from "vitest";
import {
  BACKUP_CODE_ALPHABET,
  BACKUP_CODE_COUNT,
  newBackupCode,
  newBackupCodes,
  normalizeBackupCode,
} from "./backup-codes.js";

const SHAPE = /^[23456789abcdefghjkmnpqrstuvwxyz]{5}-[23456789abcdefghjkmnpqrstuvwxyz]{5}$/;

describe("backup codes", () => {
  it("are xxxxx-xxxxx from a readable alphabet without look-alikes", () => {
    for (let i = 0; i < 200; i++) expect(newBackupCode()).toMatch(SHAPE);
    for (const confusable of ["0", "o", "1", "l", "i"]) {
      expect(BACKUP_CODE_ALPHABET).not.toContain(confusable);
    }
  });

  it("come ten at a time, all distinct", () => {
    const codes = newBackupCodes();
    expect(codes).toHaveLength(BACKUP_CODE_COUNT);
    expect(BACKUP_CODE_COUNT).toBe(10);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it("use every letter of the alphabet (the draw is not stuck)", () => {
    const seen = new Set(newBackupCodes(300).join("").replaceAll("-", ""));
    expect([...seen].sort().join("")).toBe([...BACKUP_CODE_ALPHABET].sort().join(""));
  });

  it.each([
    ["abcde-fghjk", "abcdefghjk"],
    ["ABCDE-FGHJK", "abcdefghjk"],
    [" abcde fghjk ", "abcdefghjk"],
    ["abcdefghjk", "abcdefghjk"],
    ["ab-cd-ef-gh-jk", "abcdefghjk"],
  ])("normalize %j to %j", (input, expected) => {
    expect(normalizeBackupCode(input)).toBe(expected);
  });

  it.each([
    "",
    "abcde-fghj",
    "abcde-fghjkm",
    "abcde-fghj0",
    "abcde-fghjl",
    "123456",
    "abcde_fghjk",
  ])("refuse %j", (input) => {
    expect(normalizeBackupCode(input)).toBeNull();
  });
});
