import { builtinModules } from "node:module";

const MAX_LENGTH = 214;
const RESERVED = new Set(["node_modules", "favicon.ico"]);

/**
 * Why `name` cannot be the name of a new unscoped npm package, as one
 * sentence, or undefined when it can: lowercase letters, digits, `-`, `.` and
 * `_`, starting with a letter or digit, at most 214 characters, and not a
 * Node.js built-in module.
 *
 * @example
 * ```ts
 * validatePackageName("my-app"); // undefined
 * validatePackageName("My App"); // "… may only contain …"
 * ```
 */
export function validatePackageName(name: string): string | undefined {
  if (name.length === 0) return "The name is empty.";
  if (name.length > MAX_LENGTH) return `The name is longer than ${MAX_LENGTH} characters.`;
  if (!/^[a-z0-9._-]+$/.test(name)) {
    return "The name may only contain lowercase letters, digits, '-', '.' and '_'.";
  }
  if (!/^[a-z0-9]/.test(name)) return "The name must start with a lowercase letter or a digit.";
  if (RESERVED.has(name)) return `"${name}" is a reserved name.`;
  if (builtinModules.includes(name)) return `"${name}" is the name of a Node.js built-in module.`;
  return undefined;
}

/**
 * A valid package name close to `name` (`"My App"` -> `"my-app"`), or
 * `"svc-app"` when nothing usable is left.
 */
export function suggestPackageName(name: string): string {
  const candidate = name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+/, "")
    .replace(/-+$/, "")
    .slice(0, MAX_LENGTH);
  return validatePackageName(candidate) === undefined ? candidate : "svc-app";
}
