import { resolve } from "node:path";
import { buildTemplates } from "./build-templates.js";

// Run by `pnpm build` after tsup: examples/* -> templates/ with index.json.
const packageDir = resolve(import.meta.dirname, "..");
const index = await buildTemplates({
  workspaceRoot: resolve(packageDir, "../.."),
  outDir: resolve(packageDir, "templates"),
});
const names = index.templates.map((template) => template.name).join(", ");
console.log(`create-svc: templates ${names} -> templates/`);
