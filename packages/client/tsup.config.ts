import { defineConfig } from "tsup";

export default defineConfig({
  // `@svc/client/react` is its own entry: the main one never loads react.
  entry: {
    index: "src/index.ts",
    "react/index": "src/react/index.ts",
    "server/index": "src/server/index.ts",
  },
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  // Browsers and Node 22+: nothing beyond ES2022 and the web platform's fetch and WebSocket.
  target: "es2022",
  platform: "neutral",
  external: ["react"],
});
