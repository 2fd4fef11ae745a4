import { describe, expect, it } from "vitest";
import { createAppPackageJson } from "./app-package-json.js";
import { ScaffoldError } from "./errors.js";

const VERSIONS = {
  "@svc/functions": "^0.1.0",
  "@svc/server": "^0.1.0",
  zod: "^4.6.7",
  "@types/node": "^24.0.0",
  typescript: "~5.9.3",
};

describe("createAppPackageJson", () => {
  it("is a private ESM app whose scripts run svc-server", () => {
    expect(createAppPackageJson("my-app", VERSIONS)).toEqual({
      name: "my-app",
      version: "0.1.0",
      private: true,
      type: "module",
      scripts: {
        dev: "SVC_DEV_MODE=true svc-server",
        start: "svc-server",
        typecheck: "tsc --noEmit",
      },
      dependencies: { "@svc/functions": "^0.1.0", "@svc/server": "^0.1.0", zod: "^4.6.7" },
      devDependencies: { "@types/node": "^24.0.0", typescript: "~5.9.3" },
    });
  });

  it("fails with TEMPLATES_MISSING when a version is unknown", () => {
    const { zod: _zod, ...withoutZod } = VERSIONS;
    expect(() => createAppPackageJson("my-app", withoutZod)).toThrow(
      expect.objectContaining({ code: "TEMPLATES_MISSING", message: expect.stringMatching(/zod/) }),
    );
    expect(() => createAppPackageJson("my-app", withoutZod)).toThrow(ScaffoldError);
  });
});
