import { fileURLToPath } from "node:url";

/**
 * The package's own `content/` directory. Resolved from this module's URL,
 * one level below the package root both in `src/` and in the built `dist/`,
 * so it works from a workspace checkout and from an installed package.
 */
export function defaultContentDir(): string {
  return fileURLToPath(new URL("../content/", import.meta.url));
}

/** The package's own authoring guide, `skill/SKILL.md` (resolved like {@link defaultContentDir}). */
export function defaultSkillPath(): string {
  return fileURLToPath(new URL("../skill/SKILL.md", import.meta.url));
}
