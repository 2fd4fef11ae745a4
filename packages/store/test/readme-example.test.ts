import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseManifest } from "@svc/schema";
import { expectReadmeExampleIn } from "@svc/tooling/readme-example";
import { describe, expect, it } from "vitest";
import { adminAuth, createStore } from "../src/index.js";
import { openSqlite } from "../src/sqlite.js";

const manifestJson = JSON.stringify({
  manifest_version: 1,
  name: "readme",
  version: "1",
  entities: [{ name: "List", fields: [{ name: "title", type: "string" }] }],
});

describe("the README example", () => {
  it("runs as written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-readme-"));
    const path = join(dir, "data.db");
    try {
      // --- the README example, verbatim ---
      const manifest = parseManifest(JSON.parse(manifestJson));
      const database = openSqlite(path); // { db, readDb, dialect, close }
      const store = createStore({ ...database, manifest });
      await store.migrate();
      const list = await store.transaction(adminAuth, (tx) => tx.insert("List", { title: "Home" }));
      const page = await store
        .reader(adminAuth)
        .query("List", { orderBy: { field: "title" }, limit: 50 });
      await store.close(); // closes the writer and the read pool
      // --- end ---
      expect(page.rows).toStrictEqual([list]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("matches the code in README.md", () => {
    // The test opens a temporary file where the README opens .svc/data.db.
    expectReadmeExampleIn(
      new URL("../README.md", import.meta.url),
      new URL(import.meta.url),
      (line) => line.replace('".svc/data.db"', "path"),
    );
  });
});
