import { definePackageTestConfig } from "@svc/tooling/vitest";

// Browser tests wait on a real server and Chromium: polls get room on a busy machine.
export default definePackageTestConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    expect: { poll: { timeout: 10_000 } },
  },
});
