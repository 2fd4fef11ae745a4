import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ScaffoldError } from "./errors.js";

/** The folders of a checkout that hold its packages. */
const PACKAGE_FOLDERS = ["packages", "apps"];

/** A package of the checkout: where it is and the files its build writes (main and bins). */
interface CheckoutPackage {
  readonly dir: string;
  readonly builtFiles: readonly string[];
  /** Its peer dependencies (`@svc/client`'s `react`, `@svc/functions`' optional `express`). */
  readonly peers: readonly string[];
  /** The `@svc/*` packages it depends on. */
  readonly svcDependencies: readonly string[];
}

async function readPackage(dir: string): Promise<{
  name?: unknown;
  main?: unknown;
  bin?: unknown;
  peerDependencies?: unknown;
  dependencies?: unknown;
  packageManager?: unknown;
}> {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
    return typeof parsed === "object" && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}

/** Every package of the checkout under `packages/` and `apps/`, by name. */
async function checkoutPackages(checkout: string): Promise<Map<string, CheckoutPackage>> {
  const packages = new Map<string, CheckoutPackage>();
  for (const folder of PACKAGE_FOLDERS) {
    const entries = await readdir(join(checkout, folder), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const dir = join(checkout, folder, entry.name);
      const { name, main, bin, peerDependencies, dependencies } = await readPackage(dir);
      if (typeof name !== "string") continue;
      const bins = typeof bin === "object" && bin !== null ? Object.values(bin) : [];
      const builtFiles = [main, ...bins].filter((file): file is string => typeof file === "string");
      const peers =
        typeof peerDependencies === "object" && peerDependencies !== null
          ? Object.keys(peerDependencies)
          : [];
      const svcDependencies =
        typeof dependencies === "object" && dependencies !== null
          ? Object.keys(dependencies).filter((dependency) => dependency.startsWith("@svc/"))
          : [];
      packages.set(name, { dir, builtFiles, peers, svcDependencies });
    }
  }
  return packages;
}

async function exists(path: string): Promise<boolean> {
  return readFile(path).then(
    () => true,
    () => false,
  );
}

/**
 * The dependencies that point a new app at a local checkout of the svc
 * repository instead of the registry, one for each `@svc/*` package in
 * `dependencies` (such as `@svc/server`, `@svc/functions`, `@svc/client`):
 * `link:<dir>`, a symlink to the checkout's built package whose own
 * dependencies resolve inside the checkout; or, for a package with a peer
 * dependency the app also depends on, `file:<dir>`, a copy pnpm installs
 * against the app's own peers (so a page bundles one React, the app's, not
 * a second one from the checkout). Throws `INVALID_CHECKOUT` when `root` is not such a checkout,
 * or is not installed and built.
 */
export async function checkoutLinks(
  root: string,
  dependencies: readonly string[],
): Promise<Record<string, string>> {
  const checkout = resolve(root);
  const packages = await checkoutPackages(checkout);
  if (!packages.has("@svc/server")) {
    throw new ScaffoldError("INVALID_CHECKOUT", {
      message: `${checkout} is not a checkout of the svc repository (no @svc/server in apps/server).`,
    });
  }
  const links: Record<string, string> = {};
  for (const name of dependencies.filter((dependency) => dependency.startsWith("@svc/"))) {
    const found = packages.get(name);
    if (found === undefined) {
      throw new ScaffoldError("INVALID_CHECKOUT", {
        message: `${checkout} is not a checkout of the svc repository with ${name} (not under packages/ or apps/).`,
      });
    }
    for (const file of found.builtFiles) {
      if (!(await exists(join(found.dir, file)))) {
        throw new ScaffoldError("INVALID_CHECKOUT", {
          message: `${name} in ${checkout} is not built: run pnpm install && pnpm build there first.`,
        });
      }
    }
    // A copy only where a peer is one of the app's own dependencies (React):
    // the package must then resolve the app's copy of it.
    const copy = found.peers.some((peer) => dependencies.includes(peer));
    links[name] = `${copy ? "file" : "link"}:${found.dir}`;
  }
  return links;
}

/**
 * What a copied (`file:`) package of `links` needs besides itself: its own
 * `@svc/*` dependencies, written `workspace:*` in the checkout, which pnpm
 * cannot resolve outside it. Each becomes an override pointing at the
 * checkout (`link:<dir>`), for the app's `pnpm-workspace.yaml`; transitive
 * ones too. Empty when nothing is copied.
 */
export async function checkoutOverrides(
  root: string,
  links: Readonly<Record<string, string>>,
): Promise<Record<string, string>> {
  const packages = await checkoutPackages(resolve(root));
  const overrides: Record<string, string> = {};
  const pending = Object.entries(links)
    .filter(([, spec]) => spec.startsWith("file:"))
    .flatMap(([name]) => packages.get(name)?.svcDependencies ?? []);
  while (pending.length > 0) {
    const name = pending.pop() as string;
    const found = packages.get(name);
    if (found === undefined || overrides[name] !== undefined) continue;
    overrides[name] = `link:${found.dir}`;
    pending.push(...found.svcDependencies);
  }
  return overrides;
}

/**
 * The pnpm version a checkout pins in its root `package.json`
 * (`"packageManager": "pnpm@11.28.11"` gives `11.28.11`); undefined when it
 * pins none.
 */
export async function checkoutPnpmVersion(root: string): Promise<string | undefined> {
  const { packageManager } = await readPackage(resolve(root));
  if (typeof packageManager !== "string") return undefined;
  return /^pnpm@(\d+\.\d+\.\d+[\w.+-]*)$/.exec(packageManager)?.[1];
}
