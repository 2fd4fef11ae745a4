import { describe, expect, it } from "vitest";
import { createAppPackageJson } from "./app-package-json.js";
import { ScaffoldError } from "./errors.js";

const VERSIONS = {
  "@svc/client": "^0.2.0",
  "@svc/functions": "^0.1.0",
  "@svc/server": "^0.1.0",
  zod: "^4.6.7",
  react: "^19.3.1",
  "react-dom": "^19.3.1",
  "@types/node": "^24.0.0",
  "@types/react": "^19.3.0",
  esbuild: "^0.28.2",
  typescript: "~5.9.3",
};

const PLAIN = {
  dependencies: ["@svc/functions", "@svc/server", "zod"],
  devDependencies: ["@types/node", "typescript"],
};

const BUILD = "esbuild web/main.tsx --bundle --outfile=public/app.js";

const WITH_WEB = {
  dependencies: ["@svc/client", "@svc/functions", "@svc/server", "react", "react-dom", "zod"],
  // Unsorted and without typescript: the app gets both sorted, typescript added.
  devDependencies: ["esbuild", "@types/react"],
  build: BUILD,
  codegen: "svc codegen --out web/svc-api.ts",
};

describe("createAppPackageJson", () => {
  it("is a private ESM app whose scripts run svc-server", () => {
    expect(createAppPackageJson("my-app", PLAIN, VERSIONS)).toEqual({
      name: "my-app",
      version: "0.1.0",
      private: true,
      type: "module",
      scripts: {
        dev: "SVC_DEV_MODE=true svc-server",
        start: "svc-server",
        test: "svc policy test",
        typecheck: "tsc --noEmit",
      },
      dependencies: { "@svc/functions": "^0.1.0", "@svc/server": "^0.1.0", zod: "^4.6.7" },
      devDependencies: { "@types/node": "^24.0.0", typescript: "~5.9.3" },
    });
  });

  it("takes a front end's build, and dev builds it before serving", () => {
    const packageJson = createAppPackageJson("my-app", WITH_WEB, VERSIONS);
    expect(packageJson.scripts).toEqual({
      build: BUILD,
      codegen: "svc codegen --out web/svc-api.ts",
      dev: `${BUILD} && SVC_DEV_MODE=true svc-server`,
      start: "svc-server",
      test: "svc policy test",
      typecheck: "tsc --noEmit",
    });
    expect(packageJson.dependencies).toEqual({
      "@svc/client": "^0.2.0",
      "@svc/functions": "^0.1.0",
      "@svc/server": "^0.1.0",
      react: "^19.3.1",
      "react-dom": "^19.3.1",
      zod: "^4.6.7",
    });
    expect(Object.entries(packageJson.devDependencies)).toEqual([
      ["@types/node", "^24.0.0"],
      ["@types/react", "^19.3.0"],
      ["esbuild", "^0.28.2"],
      ["typescript", "~5.9.3"],
    ]);
  });

  it("takes a template's seed script, which loads its sample rows", () => {
    const packageJson = createAppPackageJson("my-app", { ...PLAIN, seed: "svc seed" }, VERSIONS);
    expect(packageJson.scripts.seed).toBe("svc seed");
    expect(createAppPackageJson("my-app", PLAIN, VERSIONS).scripts).not.toHaveProperty("seed");
  });

  it("replaces the template's dependencies by links, and only those", () => {
    const packageJson = createAppPackageJson("my-app", PLAIN, VERSIONS, {
      "@svc/server": "link:/checkout/apps/server",
      "@svc/client": "link:/checkout/packages/client",
    });
    expect(packageJson.dependencies).toEqual({
      "@svc/functions": "^0.1.0",
      "@svc/server": "link:/checkout/apps/server",
      zod: "^4.6.7",
    });
  });

  it.each([
    ["a dependency", "zod"],
    ["a development dependency", "esbuild"],
  ] as const)("fails with TEMPLATES_MISSING when %s has no version", (_case, missing) => {
    const versions: Record<string, string> = { ...VERSIONS };
    delete versions[missing];
    const create = () => createAppPackageJson("my-app", WITH_WEB, versions);
    expect(create).toThrow(ScaffoldError);
    expect(create).toThrow(
      expect.objectContaining({
        code: "TEMPLATES_MISSING",
        message: expect.stringContaining(missing),
      }),
    );
  });
});
