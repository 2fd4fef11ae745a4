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
      // Ceilings, not waits: CI runs every package's suites side by side on
      // two cores, where a server boot or a browser launch can take a while.
      testTimeout: 60_000,
      hookTimeout: 60_000,
      // expect.poll gives up after this long (vitest's default is one second).
      expect: { poll: { timeout: 10_000, interval: 20 } },
      // The JSON report feeds the one-line total that .ci/run prints.
      reporters: ["default", ["json", { outputFile: ".vitest-report.json" }]],
      ...overrides.test,
    },
  });
}
