import { describe, expect, it } from "vitest";
import { functionFileNames } from "./function-files.js";

describe("functionFileNames", () => {
  it("keeps the function files, in name order, named after the file", () => {
    const { files, problem } = functionFileNames([
      "zeta.mjs",
      "alpha.ts",
      "beta.mts",
      "gamma.js",
      "readme.md",
      "_shared.ts",
      ".hidden.ts",
      "types.d.ts",
      "types.d.mts",
      "alpha.test.ts",
      "noextension",
    ]);
    expect(problem).toBeUndefined();
    expect(files).toEqual([
      { name: "alpha", entry: "alpha.ts", extension: ".ts", typescript: true },
      { name: "beta", entry: "beta.mts", extension: ".mts", typescript: true },
      { name: "gamma", entry: "gamma.js", extension: ".js", typescript: false },
      { name: "zeta", entry: "zeta.mjs", extension: ".mjs", typescript: false },
    ]);
  });

  it.each([["my-fn.ts"], ["9lives.js"], ["two.dots.ts"], ["ünicode.ts"]])(
    "names %s as a file with no valid function name",
    (entry) => {
      expect(functionFileNames(["ok.ts", entry]).problem).toEqual({ kind: "invalid-name", entry });
    },
  );

  it("names the two files that define one function", () => {
    expect(functionFileNames(["dup.ts", "dup.mjs"]).problem).toEqual({
      kind: "duplicate",
      name: "dup",
      other: "dup.mjs",
      entry: "dup.ts",
    });
  });
});
