import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");

describe("web/svc-api.ts", () => {
  it("is what `pnpm codegen` writes for the current manifest and function files", () => {
    // Written beside the real one, so its relative imports are the same.
    const check = resolve(ROOT, "web/svc-api.check.ts");
    try {
      execFileSync("pnpm", ["exec", "svc", "codegen", "--out", check], { cwd: ROOT });
      expect(readFileSync(check, "utf8")).toBe(
        readFileSync(resolve(ROOT, "web/svc-api.ts"), "utf8"),
      );
    } finally {
      rmSync(check, { force: true });
    }
  });
});
