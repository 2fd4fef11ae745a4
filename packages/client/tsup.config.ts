import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  // Browsers and Node 22+: nothing beyond ES2022 and the web platform's fetch.
  target: "es2022",
  platform: "neutral",
});
