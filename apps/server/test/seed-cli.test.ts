import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  startLoopbackServer,
  startTestServer,
  TODO_MANIFEST,
  tempDir,
} from "./fixtures.js";
import { runSvc } from "./svc-cli.js";
import { entity, testManifest } from "./test-app.js";

// `svc seed`: a template's sample rows (seed/*.json) loaded into the running
// app, as the shop's README says. Regression: the shop started empty and its
// generated README gave no command to fill it.

/** Writes `manifest` as `dir/svc.json` and each seed file (name to content) as JSON in `dir/seed`; returns the manifest's path. */
function writeSeededApp(dir: string, manifest: unknown, seed: Readonly<Record<string, unknown>>) {
  const path = join(dir, "svc.json");
  writeFileSync(path, JSON.stringify(manifest));
  mkdirSync(join(dir, "seed"));
  for (const [file, content] of Object.entries(seed)) {
    writeFileSync(join(dir, "seed", file), JSON.stringify(content));
  }
  return path;
}

const SHOP_MANIFEST = resolve(import.meta.dirname, "../../../examples/shop/svc.json");
const SHOP_SEED = JSON.parse(
  readFileSync(resolve(import.meta.dirname, "../../../examples/shop/seed/products.json"), "utf8"),
) as { operations: { data: { name: string } }[] };

const svc = (env: Record<string, string>, ...argv: string[]) => runSvc(argv, env);

async function productNames(url: string): Promise<string[]> {
  const response = await fetch(`${url}/api/entities/Product?limit=100`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const rows = (await response.json()) as { name: string }[];
  return rows.map((row) => row.name).sort();
}

describe("svc seed", () => {
  it("loads the shop's products once; again it skips them, --force loads them anyway", async () => {
    await using server = await startTestServer({
      SVC_MANIFEST: SHOP_MANIFEST,
      SVC_DB_PATH: ":memory:",
      SVC_DEV_MODE: "true",
    });
    const env = { SVC_MANIFEST: SHOP_MANIFEST, SVC_ADMIN_TOKEN: ADMIN_TOKEN };
    const names = SHOP_SEED.operations.map((operation) => operation.data.name).sort();
    expect(names.length).toBeGreaterThan(0);
    expect(await productNames(server.url)).toEqual([]);

    const first = await svc(env, "seed", "--url", server.url);
    expect(first).toMatchObject({ code: 0, err: "" });
    expect(first.out).toMatch(
      new RegExp(`^svc: seed: \\S*seed/products\\.json: ${names.length} rows into Product\\n$`),
    );
    expect(await productNames(server.url)).toEqual(names);

    const again = await svc(env, "seed", "--url", server.url);
    expect(again.code).toBe(0);
    expect(again.out).toContain(
      "products.json: skipped, Product already has rows (--force loads it anyway)",
    );
    expect(await productNames(server.url)).toEqual(names);

    const forced = await svc(env, "seed", "--url", server.url, "--force");
    expect(forced.code).toBe(0);
    expect((await productNames(server.url)).length).toBe(names.length * 2);
  });

  it("finds the server on SVC_PORT and the dev-mode admin token beside the manifest", async () => {
    using dir = tempDir();
    const manifest = writeSeededApp(
      dir.path,
      testManifest("notes", { entities: [entity("Note", { text: "string" })], policies: [] }),
      {
        "notes.json": {
          operations: [
            { op: "insert", entity: "Note", data: { text: "a" } },
            { op: "insert", entity: "Note", data: { text: "b" } },
          ],
        },
      },
    );
    // Dev mode without SVC_ADMIN_TOKEN: the server writes .svc/admin-token beside the manifest.
    await using server = await startLoopbackServer(
      {
        SVC_MANIFEST: manifest,
        SVC_DB_PATH: ":memory:",
        SVC_DEV_MODE: "true",
      },
      { logDestination: { write: () => undefined } },
    );
    const result = await svc({ SVC_MANIFEST: manifest, SVC_PORT: String(server.port) }, "seed");
    expect(result.err).toBe("");
    expect(result.out).toMatch(/notes\.json: 2 rows into Note\n$/);
    const rows = await fetch(`${server.url}/api/entities/Note`, {
      headers: { authorization: `Bearer ${server.adminToken}` },
    });
    expect(((await rows.json()) as { text: string }[]).map((row) => row.text).sort()).toEqual([
      "a",
      "b",
    ]);
  });

  it.each([
    [
      "no server answers",
      { SVC_MANIFEST: SHOP_MANIFEST, SVC_ADMIN_TOKEN: ADMIN_TOKEN },
      ["--url", "http://127.0.0.1:9"],
      1,
      "svc: seed: no server answers at http://127.0.0.1:9: start the app first (npm run dev), or give its address with --url\n",
    ],
    [
      "an address that is not http",
      { SVC_MANIFEST: SHOP_MANIFEST },
      ["--url", "ftp://example.com"],
      2,
      "svc: --url must be an http(s) address such as http://localhost:4321\n",
    ],
  ])("refuses when %s, saying what to do", async (_label, env, args, code, err) => {
    const result = await svc(env, "seed", ...args);
    expect(result.code).toBe(code);
    expect(result.err.startsWith(err), result.err).toBe(true);
  });

  it("has nothing to load for an app without seed/", async () => {
    const result = await svc({ SVC_MANIFEST: TODO_MANIFEST }, "seed");
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(result.out).toMatch(/^svc: seed: nothing to load \(no JSON files in .*seed\)\n$/);
  });

  it("refuses without an admin token, naming the file dev mode writes", async () => {
    using dir = tempDir();
    const manifest = writeSeededApp(dir.path, {}, { "rows.json": {} });
    const result = await svc({ SVC_MANIFEST: manifest }, "seed");
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      `svc: seed: no admin token: SVC_ADMIN_TOKEN is unset and ${join(dir.path, ".svc", "admin-token")} is missing (dev mode writes it when the server starts)\n`,
    );
  });

  it("refuses a seed file that is not a batch, naming the file", async () => {
    using dir = tempDir();
    const manifest = writeSeededApp(dir.path, {}, { "rows.json": [{ text: "a" }] });
    const result = await svc({ SVC_MANIFEST: manifest, SVC_ADMIN_TOKEN: ADMIN_TOKEN }, "seed");
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^svc: seed: \S*rows\.json is not a batch: /);
  });
});
