import { fileURLToPath } from "node:url";
import { definePackageTestConfig } from "@svc/tooling/vitest";

const config = definePackageTestConfig({
  test: { include: ["src/**/*.test.ts", "test/**/*.test.ts", "test/**/*.test.tsx"] },
});

// `// @vitest-environment happy-dom-node` (the React tests): happy-dom's DOM
// with Node's own WebSocket and fetch kept aside (see test/happy-dom-env.ts).
// A docblock names environments by package, so the name is an alias.
config.resolve = {
  ...config.resolve,
  alias: {
    "vitest-environment-happy-dom-node": fileURLToPath(
      new URL("./test/happy-dom-env.ts", import.meta.url),
    ),
  },
};

export default config;
