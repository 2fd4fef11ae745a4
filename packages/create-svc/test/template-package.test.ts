import { describe, expect, it } from "vitest";
import {
  readTemplatePackage,
  resolveRange,
  resolveTemplateVersions,
  type VersionSources,
} from "../scripts/template-package.js";

const SOURCES: VersionSources = {
  workspace: new Map([
    ["@svc/client", "0.3.0"],
    ["@svc/functions", "0.2.0"],
    ["@svc/server", "0.4.1"],
  ]),
  catalog: new Map([
    ["zod", "^4.6.7"],
    ["typescript", "~5.9.3"],
    ["@types/node", "^24.0.0"],
  ]),
};

describe("readTemplatePackage", () => {
  it("gives an example without a package.json functions, the server and zod", () => {
    expect(readTemplatePackage(undefined, "examples/x/package.json")).toEqual({
      dependencies: {
        "@svc/functions": "workspace:*",
        "@svc/server": "workspace:*",
        zod: "catalog:",
      },
      devDependencies: { "@types/node": "catalog:", typescript: "catalog:" },
    });
  });

  it("moves @svc/server to the runtime, drops test tooling, keeps build and description", () => {
    const read = readTemplatePackage(
      {
        description: "A page.",
        scripts: {
          build: "esbuild web/main.tsx",
          codegen: "svc codegen",
          seed: "svc seed",
          test: "vitest run",
        },
        dependencies: { react: "catalog:", "@svc/client": "workspace:*" },
        devDependencies: {
          "@svc/server": "workspace:^",
          "@svc/tooling": "workspace:*",
          "playwright-core": "catalog:",
          vitest: "catalog:",
          esbuild: "catalog:",
        },
      },
      "examples/x/package.json",
    );
    expect(read).toEqual({
      dependencies: {
        "@svc/client": "workspace:*",
        "@svc/server": "workspace:^",
        react: "catalog:",
      },
      devDependencies: { "@types/node": "catalog:", esbuild: "catalog:", typescript: "catalog:" },
      build: "esbuild web/main.tsx",
      codegen: "svc codegen",
      seed: "svc seed",
      description: "A page.",
    });
    // Sorted by name, as a package.json is usually kept.
    expect(Object.keys(read.dependencies)).toEqual(["@svc/client", "@svc/server", "react"]);
  });

  it.each([
    [{ dependencies: [] }, /dependencies is not an object/],
    [{ devDependencies: { zod: 4 } }, /devDependencies\.zod is not a string/],
  ])("refuses a malformed package.json %j", (packageJson, message) => {
    expect(() => readTemplatePackage(packageJson, "x")).toThrow(message);
  });
});

describe("resolveRange", () => {
  it.each([
    ["@svc/server", "workspace:*", "^0.4.1"],
    ["@svc/client", "workspace:^", "^0.3.0"],
    ["zod", "catalog:", "^4.6.7"],
    ["typescript", "catalog:default", "~5.9.3"],
    ["left-pad", "^1.3.0", "^1.3.0"],
  ])("resolves %s %s to %s", (name, spec, range) => {
    expect(resolveRange(name, spec, SOURCES)).toBe(range);
  });

  it.each([
    ["@svc/nope", "workspace:*", /not a package of this workspace/],
    ["react", "catalog:", /no entry in the default catalog/],
    ["react", "catalog:react19", /cannot be written into a standalone app/],
    ["x", "link:../x", /cannot be written into a standalone app/],
    ["x", "file:../x", /cannot be written into a standalone app/],
  ])("refuses %s %s", (name, spec, message) => {
    expect(() => resolveRange(name, spec, SOURCES)).toThrow(message);
  });
});

describe("resolveTemplateVersions", () => {
  it("merges every template's dependencies into one sorted range per name", () => {
    const versions = resolveTemplateVersions(
      [
        { dependencies: { zod: "catalog:", "@svc/server": "workspace:*" }, devDependencies: {} },
        { dependencies: { zod: "catalog:" }, devDependencies: { typescript: "catalog:" } },
      ],
      SOURCES,
    );
    expect(Object.entries(versions)).toEqual([
      ["@svc/server", "^0.4.1"],
      ["typescript", "~5.9.3"],
      ["zod", "^4.6.7"],
    ]);
  });

  it("refuses two templates that want one package at different ranges", () => {
    expect(() =>
      resolveTemplateVersions(
        [
          { dependencies: { zod: "catalog:" }, devDependencies: {} },
          { dependencies: { zod: "^3.0.0" }, devDependencies: {} },
        ],
        SOURCES,
      ),
    ).toThrow(/zod is wanted at both \^4\.6\.7 and \^3\.0\.0/);
  });
});
