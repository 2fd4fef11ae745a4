import { defineConfig, type ViteUserConfig } from "vitest/config";

/**
 * The vitest settings every svc package shares. Workspace packages resolve to
 * their TypeScript source through the `@svc/source` export condition, so a
 * test run never waits for a build of its siblings.
 */
export function definePackageTestConfig(overrides: ViteUserConfig = {}): ViteUserConfig {
  return defineConfig({
    ...overrides,
    resolve: { conditions: ["@svc/source", "module", "node", "import", "default"] },
    ssr: { resolve: { conditions: ["@svc/source", "node", "import", "default"] } },
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      environment: "node",
      testTimeout: 20_000,
      hookTimeout: 30_000,
      ...overrides.test,
    },
  });
}
