import { describe, expect, it } from "vitest";
import {
  createAppGitignore,
  createAppPnpmWorkspace,
  createAppTsconfig,
  webBuildOutputs,
} from "./app-static-files.js";

const EXAMPLE_BUILD =
  "esbuild web/main.tsx --bundle --format=esm --platform=browser --target=es2022 --minify --sourcemap --outfile=public/app.js --log-level=warning";

describe("webBuildOutputs", () => {
  it.each([
    [EXAMPLE_BUILD, ["public/app.js", "public/app.js.map"]],
    ["esbuild web/main.tsx --bundle --outfile=public/app.js", ["public/app.js"]],
    [
      "esbuild web/main.tsx --outfile ./public/bundle.js --sourcemap",
      ["public/bundle.js", "public/bundle.js.map"],
    ],
    [
      "esbuild web/main.tsx --sourcemap=external --outfile='public/a b.js'",
      ["public/a b.js", "public/a b.js.map"],
    ],
    ["esbuild web/main.tsx --sourcemap=inline --outfile=public/app.js", ["public/app.js"]],
    ["esbuild web/main.tsx --outdir=public", []],
  ])("finds what %j writes", (build, outputs) => {
    expect(webBuildOutputs(build)).toEqual(outputs);
  });
});

describe("createAppGitignore", () => {
  it("ignores the dev state, and the build output when there is a build", () => {
    expect(createAppGitignore()).toBe("node_modules/\n.svc/\n");
    expect(createAppGitignore(EXAMPLE_BUILD)).toBe(
      "node_modules/\n.svc/\npublic/app.js\npublic/app.js.map\n",
    );
  });
});

describe("createAppTsconfig", () => {
  it("is strict NodeNext without emit, checking the directories given", () => {
    expect(createAppTsconfig({ include: ["functions"] })).toEqual({
      compilerOptions: expect.objectContaining({
        module: "NodeNext",
        strict: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        lib: ["ES2023"],
        types: ["node"],
      }),
      include: ["functions"],
    });
  });

  it("takes a template's options over the defaults, but none that need the monorepo", () => {
    const tsconfig = createAppTsconfig({
      include: ["functions", "web"],
      compilerOptions: {
        jsx: "react-jsx",
        lib: ["ES2023", "DOM", "DOM.Iterable"],
        customConditions: ["@svc/source"],
        paths: { "@svc/*": ["../../packages/*/src"] },
        outDir: "dist",
      },
    });
    expect(tsconfig).toMatchObject({
      compilerOptions: { jsx: "react-jsx", lib: ["ES2023", "DOM", "DOM.Iterable"] },
      include: ["functions", "web"],
    });
    expect(JSON.stringify(tsconfig)).not.toMatch(/customConditions|paths|outDir|extends/);
  });
});

describe("createAppPnpmWorkspace", () => {
  it("is not written for an app pnpm needs nothing for", () => {
    expect(createAppPnpmWorkspace({ dependencies: ["@svc/server", "zod"] })).toBeUndefined();
  });

  it("tells pnpm to skip esbuild's install script", () => {
    const yaml = createAppPnpmWorkspace({ dependencies: ["react", "esbuild"] });
    expect(yaml).toMatch(/\nallowBuilds:\n {2}esbuild: false\n$/);
    expect(yaml?.split("\n").filter((line) => line !== "" && !line.startsWith("#"))).toEqual([
      "allowBuilds:",
      "  esbuild: false",
    ]);
  });

  it("makes an app from a checkout a workspace root of its own, settings or not", () => {
    const yaml = createAppPnpmWorkspace({ dependencies: ["zod"], ownRoot: true });
    expect(yaml).toBeDefined();
    expect(yaml?.split("\n").every((line) => line === "" || line.startsWith("#"))).toBe(true);
  });
});
