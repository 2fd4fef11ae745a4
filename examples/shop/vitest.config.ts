import { definePackageTestConfig } from "@svc/tooling/vitest";

export default definePackageTestConfig({ test: { include: ["test/**/*.test.ts"] } });
