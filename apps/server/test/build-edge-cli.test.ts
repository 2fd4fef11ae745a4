import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveEdgeWorker } from "../../../packages/edge/test/edge-worker.js";
import { tempDir } from "./fixtures.js";
import { runSvc as cli } from "./svc-cli.js";

// `svc build --target edge` end to end: the CLI builds the edge package's
// notes fixture app into a Worker directory, which then runs in workerd
// (miniflare) on a local D1 database with the migrations the build wrote.

const NOTES_APP = join(import.meta.dirname, "../../../packages/edge/test/fixtures/notes");

/** A copy of the notes app in a temp directory. */
function notesApp(): { path: string; [Symbol.dispose](): void } {
  const dir = tempDir();
  cpSync(NOTES_APP, dir.path, { recursive: true });
  return dir;
}

/** `svc build --target edge` with `flags`, on the manifest `--manifest` names. */
function buildEdge(manifest: string, ...flags: string[]) {
  return cli(["build", "--target", "edge", ...flags, "--manifest", manifest]);
}

describe("svc build --target edge", () => {
  const app = notesApp();
  let served: Awaited<ReturnType<typeof serveEdgeWorker>>;

  beforeAll(async () => {
    // The manifest from SVC_MANIFEST, as the other commands find it; the Worker beside it in edge/.
    const built = await cli(["build", "--target", "edge", "--no-docs"], {
      SVC_MANIFEST: join(app.path, "svc.json"),
    });
    expect(built.err).toBe("");
    expect(built.code).toBe(0);
    expect(built.out).toContain("4 functions");
    expect(built.out).toMatch(/new migration .*0001_svc\.sql/);
    served = await serveEdgeWorker(join(app.path, "edge"));
  });

  afterAll(async () => {
    await served?.[Symbol.asyncDispose]();
    app[Symbol.dispose]();
  });

  it("writes a Worker directory with wrangler.jsonc and the D1 migrations", () => {
    const out = join(app.path, "edge");
    expect(existsSync(join(out, "worker.js"))).toBe(true);
    expect(readdirSync(join(out, "migrations"))).toEqual(["0001_svc.sql"]);
    const wrangler = readFileSync(join(out, "wrangler.jsonc"), "utf8");
    expect(wrangler).toContain('"name": "notes"');
    expect(wrangler).toContain('"migrations_dir": "migrations"');
  });

  it("serves a function and an entity route under the app's policies", async () => {
    const registered = await served.call("POST", "/api/auth/password/register", {
      body: { email: "alice@example.com", password: "a long enough password" },
    });
    expect(registered.status).toBe(200);
    const token = registered.body.token as string;

    const written = await served.call("POST", "/api/fn/writeNote", {
      token,
      body: { slug: "cli", body: "built by svc build" },
    });
    expect(written.status).toBe(200);
    expect(written.body.edits).toBe(2);

    const read = await served.call("GET", `/api/entities/Note/${written.body.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body.body).toBe("built by svc build");
    // An anonymous caller does not see it: the row policy runs in the Worker too.
    expect((await served.call("GET", `/api/entities/Note/${written.body.id}`)).status).toBe(404);
  });
});

describe("svc build refusals", () => {
  it("refuses a missing or unknown target with UNKNOWN_BUILD_TARGET and the usage", async () => {
    for (const argv of [["build"], ["build", "--target", "lambda"]]) {
      const { code, err } = await cli(argv);
      expect(code).toBe(2);
      expect(err).toMatch(/^svc: build: UNKNOWN_BUILD_TARGET: /);
      expect(err).toContain("Usage: svc build --target edge");
    }
  });

  it("refuses a missing manifest with MANIFEST_NOT_FOUND", async () => {
    using dir = tempDir();
    const { code, err } = await buildEdge(join(dir.path, "svc.json"));
    expect(code).toBe(1);
    expect(err).toMatch(/^svc: build: MANIFEST_NOT_FOUND: no manifest at /);
  });

  it("refuses a function that cannot be bundled with FUNCTION_NOT_BUNDLED, naming the file", async () => {
    using app = notesApp();
    writeFileSync(
      join(app.path, "functions", "broken.ts"),
      'import { nothing } from "./no-such-module.js";\nexport default nothing;\n',
    );
    const { code, err } = await buildEdge(join(app.path, "svc.json"), "--no-docs");
    expect(code).toBe(1);
    expect(err).toMatch(/^svc: build: FUNCTION_NOT_BUNDLED: the Worker cannot be bundled:/);
    expect(err).toMatch(/broken\.ts:1:\d+: Could not resolve "\.\/no-such-module\.js"/);
  });

  it("refuses a function file without a valid name with FUNCTION_NOT_BUNDLED", async () => {
    using app = notesApp();
    writeFileSync(join(app.path, "functions", "9lives.ts"), "export default 1;\n");
    const { code, err } = await buildEdge(join(app.path, "svc.json"));
    expect(code).toBe(1);
    expect(err).toMatch(/^svc: build: FUNCTION_NOT_BUNDLED: 9lives\.ts has no valid function name/);
  });
});
