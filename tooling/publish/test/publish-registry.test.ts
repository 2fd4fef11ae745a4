import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  matchTarget,
  serverDatabaseEnv,
  type TestDatabaseTarget,
  testDatabases,
} from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type PublishedPackage,
  pointedFiles,
  publishedPackages,
  workspaceSpecifiers,
} from "./packages.js";
import { type LocalRegistry, startRegistry } from "./registry.js";
import { inParallel, run, start } from "./run.js";

// The packages as a third party meets them: every publishable package is
// packed (pnpm rewrites `workspace:` and `catalog:` ranges) and published to
// a verdaccio on loopback; then, with plain npm and no workspace, a third
// party's own express app (examples/compose) and an app scaffolded by the
// published create-svc are installed from it, booted and called.

const ROOT = join(import.meta.dirname, "../../..");
const started = Date.now();
let temp = "";
let registry: LocalRegistry | undefined;
let npmEnv: NodeJS.ProcessEnv = {};
const packages = publishedPackages(ROOT);

/** The environment of a child: no npm or pnpm settings inherited from the runner (pnpm, vitest). */
function cleanEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|pnpm_|vitest|node_env$|node_options$|init_cwd$)/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

function tarballName(pkg: PublishedPackage): string {
  return `${pkg.name.replace(/^@/, "").replace("/", "-")}-${pkg.version}.tgz`;
}

/**
 * Runs `boot` once on each test database (SQLite, and Postgres when
 * `SVC_TEST_DATABASE_URL` is set), dropping each afterwards.
 */
async function onEachDatabase(boot: (target: TestDatabaseTarget) => Promise<void>): Promise<void> {
  for (const database of testDatabases()) {
    const target = await database.create();
    try {
      await boot(target);
    } finally {
      await database.destroy(target);
    }
  }
}

const npmInstall = ["install", "--prefer-offline", "--no-audit", "--no-fund"];

beforeAll(async () => {
  temp = mkdtempSync(join(tmpdir(), "svc-publish-"));
  registry = await startRegistry(temp);
  const host = registry.url.replace(/^http:/, "");
  // npm publish wants a credential for the registry; verdaccio lets anyone publish our names.
  writeFileSync(join(temp, ".npmrc"), `${host}:_authToken=publish-check\n`);
  npmEnv = cleanEnv({
    npm_config_registry: registry.url,
    npm_config_userconfig: join(temp, ".npmrc"),
    npm_config_cache: join(temp, "npm-cache"),
    npm_config_update_notifier: "false",
    npm_config_loglevel: "error",
  });
}, 60_000);

afterAll(async () => {
  await registry?.close();
  if (temp !== "") rmSync(temp, { recursive: true, force: true });
  console.log(`publish test: ${((Date.now() - started) / 1000).toFixed(1)} s wall time`);
});

describe("the packages on a registry", () => {
  it("pack with built files behind every entry point and publish", async () => {
    expect(packages.map((pkg) => pkg.name)).toEqual(
      expect.arrayContaining([
        "@svc/store",
        "@svc/auth-core",
        "@svc/sync",
        "@svc/server",
        "create-svc",
      ]),
    );
    const tarballs = join(temp, "tarballs");
    // One pnpm for every package: a pnpm start-up each costs more than the packing.
    const filters = packages.flatMap((pkg) => ["--filter", pkg.name]);
    await run("pnpm", ["-r", ...filters, "pack", "--pack-destination", tarballs], {
      cwd: ROOT,
      env: cleanEnv({}),
    });
    const problems: string[] = [];
    await inParallel(packages, 4, async (pkg) => {
      const tgz = join(tarballs, tarballName(pkg));
      const listed = new Set(
        (await run("tar", ["-tzf", tgz], { cwd: temp, env: npmEnv }))
          .split("\n")
          .map((line) => line.replace(/^package\//, "")),
      );
      const manifest = JSON.parse(
        await run("tar", ["-xzOf", tgz, "package/package.json"], { cwd: temp, env: npmEnv }),
      ) as Record<string, unknown>;
      const before = problems.length;
      for (const file of pointedFiles(manifest)) {
        if (!listed.has(file)) problems.push(`${pkg.name}: ${file} is not in the tarball`);
      }
      for (const specifier of workspaceSpecifiers(manifest)) {
        problems.push(`${pkg.name}: ${specifier} left in the packed package.json`);
      }
      if (problems.length === before)
        await run("npm", ["publish", tgz], { cwd: temp, env: npmEnv });
    });
    expect(problems).toEqual([]);
    const view = await run("npm", ["view", "@svc/store", "version"], { cwd: temp, env: npmEnv });
    expect(view.trim()).toBe(packages.find((pkg) => pkg.name === "@svc/store")?.version);
  });

  // The two installs share the npm cache and the registry, and wait on the network: side by side.
  it.concurrent("installs examples/compose with npm, passes its test, boots and answers", async () => {
    const app = join(temp, "compose");
    cpSync(join(ROOT, "examples/compose"), app, {
      recursive: true,
      filter: (source) => !/[/\\](node_modules|\.data)$/.test(source),
    });
    await run("npm", npmInstall, { cwd: app, env: npmEnv });
    await run("npm", ["test"], { cwd: app, env: npmEnv });

    await onEachDatabase(async (target) => {
      const server = await start("npm", ["start"], {
        cwd: app,
        env: cleanEnv({
          PORT: "0",
          ...matchTarget<Record<string, string>>(target, {
            sqlite: ({ path }) => ({ DATA_DIR: join(path, "..") }),
            postgres: ({ url }) => ({ DATABASE_URL: url }),
          }),
          APP_SECRET: "s".repeat(32),
          ADMIN_TOKEN: "a".repeat(32),
        }),
        ready: /listening on (http:\/\/\S+)/,
        timeoutMs: 60_000,
      });
      try {
        const base = server.match[1];
        expect(await (await fetch(`${base}/hello`)).json()).toEqual({ hello: "world" });
        const signIn = await fetch(`${base}/api/auth/password/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "grace@example.com", password: "a long enough password" }),
        });
        expect(signIn.status).toBe(200);
        const { token } = (await signIn.json()) as { token: string };
        const authorization = { authorization: `Bearer ${token}` };
        const written = await fetch(`${base}/notes`, {
          method: "POST",
          headers: { ...authorization, "content-type": "application/json" },
          body: JSON.stringify({ text: "from npm" }),
        });
        expect(written.status).toBe(201);
        const pulled = await fetch(`${base}/api/sync/pull?since=0`, { headers: authorization });
        expect(pulled.status).toBe(200);
        const { changes } = (await pulled.json()) as { changes: { entity: string; op: string }[] };
        expect(changes.filter((change) => change.entity === "Note")).toEqual([
          expect.objectContaining({ entity: "Note", op: "insert" }),
        ]);
      } finally {
        await server.stop();
      }
    });
  });

  it.concurrent("scaffolds the default template with the published create-svc, installs it with npm and boots it", async () => {
    await run("npm", ["create", "svc@latest", "my-app", "--yes"], { cwd: temp, env: npmEnv });
    const app = join(temp, "my-app");
    const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    // Registry ranges, never a checkout's link: or file: paths.
    expect(
      Object.values(manifest.dependencies).filter((range) => /^(link|file):/.test(range)),
    ).toEqual([]);
    await run("npm", npmInstall, { cwd: app, env: npmEnv });

    await onEachDatabase(async (target) => {
      const server = await start("npm", ["run", "dev"], {
        cwd: app,
        env: cleanEnv({
          SVC_PORT: "0",
          SVC_HOST: "127.0.0.1",
          ...serverDatabaseEnv(target),
        }),
        ready: /listening on (http:\/\/\S+)/,
        timeoutMs: 60_000,
      });
      try {
        const base = server.match[1];
        expect((await fetch(`${base}/health`)).status).toBe(200);
        const adminToken = readFileSync(join(app, ".svc", "admin-token"), "utf8").trim();
        const added = await fetch(`${base}/api/fn/addNote`, {
          method: "POST",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body: JSON.stringify({ text: "hello", ownerId: "me" }),
        });
        expect(added.status).toBe(200);
        expect(await added.json()).toEqual({ id: expect.any(String) });
      } finally {
        await server.stop();
      }
    });
  });
});
