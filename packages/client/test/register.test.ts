import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

// `Register` is declaration merging, which reaches a whole program: the
// app that registers an Api (test/register/app.ts) is compiled on its own.

const tsc = join(
  dirname(createRequire(import.meta.url).resolve("typescript/package.json")),
  "bin",
  "tsc",
);

describe("an Api registered for the React hooks", () => {
  it("checks entity names, where fields, rows, function names, arguments and results", () => {
    const result = spawnSync(
      process.execPath,
      [tsc, "--noEmit", "-p", join(import.meta.dirname, "register", "tsconfig.json")],
      { encoding: "utf8" },
    );
    expect(`${result.stdout}${result.stderr}`).toBe("");
    expect(result.status).toBe(0);
  }, 60_000);
});
