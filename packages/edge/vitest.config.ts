import { definePackageTestConfig } from "@svc/tooling/vitest";

export default definePackageTestConfig();
