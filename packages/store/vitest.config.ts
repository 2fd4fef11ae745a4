import { definePackageTestConfig } from "@svc/tooling/vitest";
import type { ViteUserConfig } from "vitest/config";

const preset = definePackageTestConfig();

// The shared preset lists "import" among the SSR resolve conditions; Node then
// applies it to require() too, and pg's CommonJS code would require pg-pool's
// ESM build (a module namespace, not a class). Same list, without "import".
const config: ViteUserConfig = {
  ...preset,
  ssr: {
    ...preset.ssr,
    resolve: { ...preset.ssr?.resolve, conditions: ["@svc/source", "node", "default"] },
  },
};

export default config;
