import { definePackageTestConfig } from "@svc/tooling/vitest";

export default definePackageTestConfig({
  test: { include: ["test/**/*.test.ts"], globalSetup: ["test/build-web.ts"] },
});
