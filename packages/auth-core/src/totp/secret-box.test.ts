import { randomBytes } from "node:crypto";
import { encodeBase32UpperCaseNoPadding } from "@oslojs/encoding";
import { describe, expect, it } from "vitest";
import { deriveKey } from "../secrets.js";
import { openSecret, sealSecret } from "./secret-box.js";

const KEY = deriveKey("totp secret-box test secret, 32+ characters", "totp secrets");
const OTHER_KEY = deriveKey("another deployment secret, 32+ characters", "totp secrets");
const USER = "user-1";

function flipByte(sealed: string, index: number): string {
  const bytes = Buffer.from(sealed, "base64url");
  const at = index < 0 ? bytes.length + index : index;
  bytes[at] = (bytes[at] ?? 0) ^ 0x01;
  return bytes.toString("base64url");
}

describe("sealSecret / openSecret", () => {
  const secret = new Uint8Array(randomBytes(20));

  it("round-trips a secret", () => {
    expect(openSecret(KEY, sealSecret(KEY, secret, USER), USER)).toEqual(secret);
  });

  it("stores iv | ciphertext | tag as base64url, with a fresh IV each time", () => {
    const first = sealSecret(KEY, secret, USER);
    const second = sealSecret(KEY, secret, USER);
    expect(first).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(first, "base64url")).toHaveLength(12 + 20 + 16);
    expect(first).not.toBe(second);
  });

  it("keeps nothing of the secret in the stored value", () => {
    const sealed = sealSecret(KEY, secret, USER);
    const raw = Buffer.from(sealed, "base64url");
    const plain = Buffer.from(secret);
    expect(raw.includes(plain)).toBe(false);
    // No 4-byte run of the secret survives anywhere in the stored bytes.
    for (let i = 0; i + 4 <= plain.length; i++) {
      expect(raw.includes(plain.subarray(i, i + 4))).toBe(false);
    }
    for (const encoded of [
      encodeBase32UpperCaseNoPadding(secret),
      plain.toString("hex"),
      plain.toString("base64url"),
      plain.toString("base64"),
    ]) {
      expect(sealed.toUpperCase()).not.toContain(encoded.slice(0, 8).toUpperCase());
    }
  });

  it.each([
    ["the IV", 0],
    ["the ciphertext", 12 + 5],
    ["the tag", -1],
  ])("refuses a value with %s altered", (_part, index) => {
    const sealed = sealSecret(KEY, secret, USER);
    expect(() => openSecret(KEY, flipByte(sealed, index), USER)).toThrow(/could not be decrypted/);
  });

  it("refuses a value moved to another user's row", () => {
    const sealed = sealSecret(KEY, secret, USER);
    expect(() => openSecret(KEY, sealed, "user-2")).toThrow(/could not be decrypted/);
  });

  it("refuses a value sealed under another deployment secret", () => {
    const sealed = sealSecret(OTHER_KEY, secret, USER);
    expect(() => openSecret(KEY, sealed, USER)).toThrow(/could not be decrypted/);
  });

  it("refuses a truncated value", () => {
    expect(() => openSecret(KEY, Buffer.alloc(20).toString("base64url"), USER)).toThrow(
      /truncated/,
    );
  });
});
