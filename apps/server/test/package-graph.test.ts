import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// The dependency direction of ../shared/ARCHITECTURE.md, as the packages'
// own manifests must keep it: what each workspace package may depend on at
// run time (dependencies and peer dependencies; dev dependencies are free).
// A package missing here, or an edge not listed, fails the test, so a new
// import direction is a decision made on purpose, with this table.
const allowed: Readonly<Record<string, readonly string[]>> = {
  "@svc/schema": [],
  "@svc/policy-engine": ["@svc/schema"],
  "@svc/store": ["@svc/schema", "@svc/policy-engine"],
  "@svc/functions": ["@svc/schema", "@svc/store"],
  "@svc/auth-core": ["@svc/schema", "@svc/store"],
  "@svc/oauth-providers": ["@svc/schema", "@svc/store", "@svc/auth-core"],
  // auth-core for its redirect rule and cache counters; the caller comes
  // from @svc/schema's `getCaller(req)`, as for every router below.
  "@svc/billing": ["@svc/schema", "@svc/store", "@svc/auth-core"],
  // The caller seam is @svc/schema's (`resolveCaller`, `getCaller`): the
  // live transports get the concrete resolvers from the composer, so a
  // subscription never goes back up to auth-core, nor do jobs and files.
  "@svc/sync": ["@svc/schema", "@svc/policy-engine", "@svc/store"],
  "@svc/jobs": ["@svc/schema", "@svc/store"],
  "@svc/files": ["@svc/schema", "@svc/store"],
  "@svc/agent-docs": [],
  "@svc/mcp-server": [],
  // schema only for its dependency-free `@svc/schema/live-frames` subpath: the
  // live wire protocol, defined once for the server and the browser client.
  "@svc/client": ["@svc/schema"],
  "create-svc": [],
  // The experimental edge worker composes the request-path packages, as the server does.
  "@svc/edge": [
    "@svc/schema",
    "@svc/store",
    "@svc/functions",
    "@svc/auth-core",
    "@svc/agent-docs",
    "@svc/mcp-server",
  ],
  "@svc/server": [
    "@svc/schema",
    "@svc/policy-engine",
    "@svc/store",
    "@svc/functions",
    "@svc/auth-core",
    "@svc/oauth-providers",
    "@svc/billing",
    "@svc/sync",
    "@svc/jobs",
    "@svc/files",
    "@svc/agent-docs",
    "@svc/mcp-server",
    // Only `svc build --target edge` loads it (a dynamic import), never the server.
    "@svc/edge",
  ],
};

const root = resolve(import.meta.dirname, "../../..");

function workspaceManifests(): { name: string; deps: string[] }[] {
  const dirs = [
    ...readdirSync(join(root, "packages")).map((dir) => join(root, "packages", dir)),
    join(root, "apps", "server"),
  ];
  return dirs.flatMap((dir) => {
    let text: string;
    try {
      text = readFileSync(join(dir, "package.json"), "utf8");
    } catch {
      return [];
    }
    const manifest = JSON.parse(text) as {
      name: string;
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    const runtime = { ...manifest.dependencies, ...manifest.peerDependencies };
    const deps = Object.entries(runtime)
      .filter(([name, range]) => range.startsWith("workspace:") || name in allowed)
      .map(([name]) => name);
    return [{ name: manifest.name, deps }];
  });
}

describe("the package dependency graph", () => {
  const manifests = workspaceManifests();

  it("knows every workspace package", () => {
    expect(manifests.map((m) => m.name).sort()).toEqual(Object.keys(allowed).sort());
  });

  it.each(manifests)("$name depends only on what ARCHITECTURE.md allows", ({ name, deps }) => {
    const extra = deps.filter((dep) => !(allowed[name] ?? []).includes(dep));
    expect(extra).toEqual([]);
  });

  it("has no cycle", () => {
    const edges = new Map(manifests.map((m) => [m.name, m.deps]));
    const visiting = new Set<string>();
    const done = new Set<string>();
    const visit = (node: string, path: string[]): void => {
      if (done.has(node)) return;
      if (visiting.has(node)) throw new Error(`cycle: ${[...path, node].join(" -> ")}`);
      visiting.add(node);
      for (const next of edges.get(node) ?? []) visit(next, [...path, node]);
      visiting.delete(node);
      done.add(node);
    };
    for (const node of edges.keys()) expect(() => visit(node, [])).not.toThrow();
  });
});
