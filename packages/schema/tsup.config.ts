import { defineConfig } from "tsup";

export default defineConfig({
  // `@svc/schema/live-frames` is its own entry: the client imports it alone, without zod.
  entry: ["src/index.ts", "src/http.ts", "src/live-frames.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node22",
});
