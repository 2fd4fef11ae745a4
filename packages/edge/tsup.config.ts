import { defineConfig } from "tsup";

export default defineConfig({
  // The build bundles worker.js and platform/* into each app's Worker.
  entry: [
    "src/index.ts",
    "src/worker.ts",
    "src/bin.ts",
    "src/platform/argon2.ts",
    "src/platform/no-tsx.ts",
  ],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node22",
});
