import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ScaffoldError } from "./errors.js";

/** Where each linked package lives in a checkout of the svc repository. */
const CHECKOUT_PACKAGES: Readonly<Record<string, string>> = {
  "@svc/functions": "packages/functions",
  "@svc/server": "apps/server",
};

/** What a package needs built to be linked: its entry points. */
const BUILT_FILES: Readonly<Record<string, string>> = {
  "@svc/functions": "dist/index.js",
  "@svc/server": "dist/main.js",
};

async function readName(dir: string): Promise<unknown> {
  try {
    return (JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as { name?: unknown })
      .name;
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  return readFile(path).then(
    () => true,
    () => false,
  );
}

/**
 * The `link:` dependencies that point a new app at a local checkout of the
 * svc repository instead of the registry: `@svc/server` and
 * `@svc/functions`, each a symlink to the checkout's built package (their
 * own dependencies resolve inside the checkout). Throws `INVALID_CHECKOUT`
 * when `root` is not such a checkout, or is not installed and built.
 */
export async function checkoutLinks(root: string): Promise<Record<string, string>> {
  const checkout = resolve(root);
  const links: Record<string, string> = {};
  for (const [name, path] of Object.entries(CHECKOUT_PACKAGES)) {
    const dir = join(checkout, path);
    if ((await readName(dir)) !== name) {
      throw new ScaffoldError("INVALID_CHECKOUT", {
        message: `${checkout} is not a checkout of the svc repository (no ${name} in ${path}).`,
      });
    }
    if (!(await exists(join(dir, BUILT_FILES[name] ?? "package.json")))) {
      throw new ScaffoldError("INVALID_CHECKOUT", {
        message: `${name} in ${checkout} is not built: run pnpm install && pnpm build there first.`,
      });
    }
    links[name] = `link:${dir}`;
  }
  return links;
}
