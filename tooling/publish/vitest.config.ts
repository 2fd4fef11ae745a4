import { definePackageTestConfig } from "@svc/tooling/vitest";

// One suite that publishes, installs and boots: minutes, not the preset's minute.
export default definePackageTestConfig({
  test: { include: ["test/**/*.test.ts"], testTimeout: 600_000, hookTimeout: 300_000 },
});
