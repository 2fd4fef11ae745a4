import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildTemplates } from "../scripts/build-templates.js";
import type { TemplatesIndex } from "../src/templates.js";

/** The monorepo root, which holds `examples/`. */
export const WORKSPACE_ROOT = resolve(import.meta.dirname, "../../..");

/** A temp directory removed by the returned disposer. */
export function tempDir(prefix = "create-svc-test-"): { path: string; [Symbol.dispose](): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Runs the build step into a temp directory, so the tests see exactly what
 * `pnpm build` ships without depending on a previous build.
 */
export async function buildTestTemplates(): Promise<{
  dir: string;
  index: TemplatesIndex;
  [Symbol.dispose](): void;
}> {
  const temp = tempDir("create-svc-templates-");
  const dir = join(temp.path, "templates");
  const index = await buildTemplates({ workspaceRoot: WORKSPACE_ROOT, outDir: dir });
  return { dir, index, [Symbol.dispose]: () => temp[Symbol.dispose]() };
}
