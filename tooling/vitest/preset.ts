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
    // Vitest hands the SSR conditions to Node too, where they also apply to
    // require(): listing "import" there would make pg's CommonJS code load
    // pg-pool's ESM build. `@svc/source` stays, so function files imported by
    // Node itself (through tsx) reach workspace packages' source.
    ssr: { resolve: { conditions: ["@svc/source", "node", "default"] } },
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      environment: "node",
      testTimeout: 20_000,
      hookTimeout: 30_000,
      // The JSON report feeds the one-line total that .ci/run prints.
      reporters: ["default", ["json", { outputFile: ".vitest-report.json" }]],
      ...overrides.test,
    },
  });
}
