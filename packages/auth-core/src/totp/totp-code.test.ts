import { generateTOTP } from "@oslojs/otp";
import { afterEach, describe, expect, it, vi } from "vitest";
import { matchTotpStep, timeStepAt, totpCodeAt } from "./totp-code.js";

// RFC 6238 appendix B, SHA-1 seed, truncated to 6 digits.
const RFC_KEY = new TextEncoder().encode("12345678901234567890");
const RFC_VECTORS: [number, string][] = [
  [59, "287082"],
  [1111111109, "081804"],
  [1111111111, "050471"],
  [1234567890, "005924"],
  [2000000000, "279037"],
  [20000000000, "353130"],
];

/** A step boundary, so ±30 s lands exactly on the neighbouring steps. */
const NOW = Date.UTC(2026, 10, 25, 10, 0, 0);
const KEY = new Uint8Array(Array.from({ length: 20 }, (_, i) => i * 7 + 3));

afterEach(() => {
  vi.useRealTimers();
});

describe("totpCodeAt", () => {
  it.each(RFC_VECTORS)("matches RFC 6238 at %i s", (seconds, code) => {
    expect(totpCodeAt(RFC_KEY, seconds * 1000)).toBe(code);
  });

  it("agrees with @oslojs/otp's generateTOTP at the same wall-clock time", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    for (const at of [NOW, NOW + 29_999, NOW + 30_000, NOW + 12_345_678]) {
      vi.setSystemTime(at);
      expect(totpCodeAt(KEY, at)).toBe(generateTOTP(KEY, 30, 6));
    }
  });
});

describe("matchTotpStep (injected clock)", () => {
  const step = timeStepAt(NOW);

  it("accepts the current step's code anywhere inside the step", () => {
    const code = totpCodeAt(KEY, NOW);
    expect(matchTotpStep(KEY, code, { now: NOW })).toBe(step);
    expect(matchTotpStep(KEY, code, { now: NOW + 29_999 })).toBe(step);
  });

  it.each([
    ["the previous step", -30_000, -1],
    ["the next step", 30_000, 1],
  ])("accepts a code of %s (one step of drift)", (_label, offset, delta) => {
    expect(matchTotpStep(KEY, totpCodeAt(KEY, NOW + offset), { now: NOW })).toBe(step + delta);
  });

  it.each([
    ["two steps ago", -60_000],
    ["two steps ahead", 60_000],
    ["an hour ago", -3_600_000],
  ])("refuses a code from %s", (_label, offset) => {
    expect(matchTotpStep(KEY, totpCodeAt(KEY, NOW + offset), { now: NOW })).toBeNull();
  });

  it("follows the injected clock, not Date.now", () => {
    const code = totpCodeAt(KEY, NOW);
    expect(matchTotpStep(KEY, code, { now: NOW + 90_000 })).toBeNull();
    expect(matchTotpStep(KEY, code, { now: NOW - 30_000 })).toBe(step);
  });

  it.each(["", "12345", "1234567", "12345a", " 123456", "١٢٣٤٥٦"])(
    "refuses the malformed code %j",
    (code) => {
      expect(matchTotpStep(KEY, code, { now: NOW })).toBeNull();
    },
  );

  it("refuses a code of another key", () => {
    const other = new Uint8Array(20).fill(9);
    const code = totpCodeAt(other, NOW);
    expect(totpCodeAt(KEY, NOW)).not.toBe(code);
    expect(matchTotpStep(KEY, code, { now: NOW })).toBeNull();
  });

  describe("replay refusal (steps at or before the last accepted one)", () => {
    it("refuses the code of the last accepted step", () => {
      const code = totpCodeAt(KEY, NOW);
      expect(matchTotpStep(KEY, code, { now: NOW, after: step })).toBeNull();
    });

    it("refuses an older step's code still inside the window", () => {
      const previous = totpCodeAt(KEY, NOW - 30_000);
      expect(matchTotpStep(KEY, previous, { now: NOW, after: step - 1 })).toBeNull();
      expect(matchTotpStep(KEY, previous, { now: NOW, after: step - 2 })).toBe(step - 1);
    });

    it("accepts the next step's code after the last accepted one", () => {
      const next = totpCodeAt(KEY, NOW + 30_000);
      expect(matchTotpStep(KEY, next, { now: NOW, after: step })).toBe(step + 1);
    });
  });
});
