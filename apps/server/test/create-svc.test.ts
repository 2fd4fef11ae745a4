import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { scaffold } from "create-svc";
import { describe, expect, it } from "vitest";
import { startLoopbackServer, tempDir } from "./fixtures.js";

// create-svc end to end: an app scaffolded from each starter (the templates
// create-svc's build copied from examples/) boots on this server and answers
// its functions. It lives here because packages never depend on apps.

const WORKSPACE_ROOT = join(import.meta.dirname, "../../..");

const FUNCTIONS_DIR = join(WORKSPACE_ROOT, "packages/functions");
const CLIENT_DIR = join(WORKSPACE_ROOT, "packages/client");
const fromFunctions = createRequire(join(FUNCTIONS_DIR, "package.json"));
const fromClient = createRequire(join(CLIENT_DIR, "package.json"));
const fromHere = createRequire(import.meta.url);
const TYPESCRIPT_DIR = dirname(fromHere.resolve("typescript/package.json"));

/**
 * What `npm install` would give a scaffolded app, as symlinks into this
 * workspace: @svc/functions and the zod it resolves (for the functions),
 * typescript with @types/node (for its typecheck script), and @svc/client
 * with the React types it resolves (for a template's page in web/).
 */
const LINKED_PACKAGES: Record<string, string> = {
  "@svc/functions": FUNCTIONS_DIR,
  zod: dirname(fromFunctions.resolve("zod/package.json")),
  typescript: TYPESCRIPT_DIR,
  "@types/node": dirname(fromHere.resolve("@types/node/package.json")),
  "@svc/client": CLIENT_DIR,
  "@types/react": dirname(fromClient.resolve("@types/react/package.json")),
  "@types/react-dom": dirname(fromClient.resolve("@types/react-dom/package.json")),
};

function linkDependencies(appDir: string): void {
  for (const [name, target] of Object.entries(LINKED_PACKAGES)) {
    const link = join(appDir, "node_modules", name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link, "junction");
  }
}

/** A mutation to call on each template, then a query that must list its row. */
const SMOKE_CALLS = [
  {
    template: "default",
    mutation: "addNote",
    args: { text: "hello", ownerId: "me" },
    query: "listNotes",
  },
  {
    template: "todo",
    mutation: "createTodo",
    args: { title: "Milk", ownerId: "me" },
    query: "listTodos",
  },
];

describe("a scaffolded app", () => {
  it.each(SMOKE_CALLS)(
    "boots from the $template template and answers its functions",
    async (smoke) => {
      using temp = tempDir();
      const appDir = join(temp.path, `${smoke.template}-app`);
      await scaffold({ template: smoke.template, targetDir: appDir });
      linkDependencies(appDir);

      await using server = await startLoopbackServer({
        SVC_MANIFEST: join(appDir, "svc.json"),
        SVC_DB_PATH: ":memory:",
        SVC_DEV_MODE: "true",
      });
      expect(server.manifest.name).toBe(`${smoke.template}-app`);
      const call = (name: string, body: unknown): Promise<Response> =>
        fetch(`${server.url}/api/fn/${name}`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${server.adminToken}`,
            "content-type": "application/json",
          },
          body: JSON.stringify(body),
        });

      const empty = await call(smoke.query, {});
      expect(empty.status).toBe(200);
      expect(await empty.json()).toMatchObject({ rows: [] });

      const created = await call(smoke.mutation, smoke.args);
      expect(created.status).toBe(200);
      const { id } = (await created.json()) as { id: string };

      const listed = await call(smoke.query, {});
      expect(listed.status).toBe(200);
      expect(await listed.json()).toMatchObject({ rows: [expect.objectContaining({ id })] });
    },
  );

  it.each(SMOKE_CALLS.map((smoke) => smoke.template))(
    "type-checks the %s template's functions (and page) with the generated tsconfig",
    async (template) => {
      using temp = tempDir();
      const appDir = join(temp.path, "app");
      await scaffold({ template, targetDir: appDir });
      linkDependencies(appDir);
      const tsc = join(TYPESCRIPT_DIR, "bin", "tsc");
      const result = spawnSync(process.execPath, [tsc, "--noEmit", "-p", appDir], {
        encoding: "utf8",
      });
      expect(`${result.stdout}${result.stderr}`).toBe("");
      expect(result.status).toBe(0);
    },
    60_000,
  );
});
