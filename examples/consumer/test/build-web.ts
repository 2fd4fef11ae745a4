import { execFileSync } from "node:child_process";
import { resolve } from "node:path";

/**
 * Vitest global setup: builds the front end (`pnpm run build`, the same
 * esbuild command a user runs) into public/app.js once before the tests,
 * so the browser tests load the current web/ code.
 */
export default function buildWeb(): void {
  execFileSync("pnpm", ["run", "--silent", "build"], {
    cwd: resolve(import.meta.dirname, ".."),
    stdio: "inherit",
  });
}
