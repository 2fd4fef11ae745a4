import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A package of the workspace that is published. */
export interface PublishedPackage {
  readonly name: string;
  readonly version: string;
  readonly dir: string;
}

/** Every package under `packages/` and `apps/` that is not private. */
export function publishedPackages(root: string): PublishedPackage[] {
  const found: PublishedPackage[] = [];
  for (const folder of ["packages", "apps"]) {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = join(root, folder, entry.name);
      let manifest: { name?: string; version?: string; private?: boolean };
      try {
        manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      } catch {
        continue;
      }
      if (manifest.private === true || manifest.name === undefined) continue;
      found.push({ name: manifest.name, version: manifest.version ?? "0.0.0", dir });
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** The file paths a packed `package.json` points at: main, types, bins and every export target. */
export function pointedFiles(manifest: Record<string, unknown>): string[] {
  const targets: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") targets.push(value);
    else if (typeof value === "object" && value !== null) Object.values(value).forEach(walk);
  };
  walk(manifest.main);
  walk(manifest.types);
  walk(manifest.bin);
  walk(manifest.exports);
  return [...new Set(targets)].map((target) => target.replace(/^\.\//, "")).sort();
}

/** Dependency specifiers only a workspace understands (`workspace:`, `catalog:`, `link:`, `file:`). */
export function workspaceSpecifiers(manifest: Record<string, unknown>): string[] {
  const found: string[] = [];
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    const deps = manifest[field];
    if (typeof deps !== "object" || deps === null) continue;
    for (const [name, range] of Object.entries(deps)) {
      if (typeof range === "string" && /^(workspace|catalog|link|file):/.test(range)) {
        found.push(`${field}.${name}: ${range}`);
      }
    }
  }
  return found;
}
