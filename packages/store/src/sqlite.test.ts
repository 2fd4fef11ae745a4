import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseManifest } from "@svc/schema";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { createStore } from "./create-store.js";
import { openSqlite } from "./sqlite.js";

describe("openSqlite", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("opens the file in WAL mode with foreign keys, a busy timeout and NORMAL sync", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-sqlite-"));
    dirs.push(dir);
    const { db, close } = openSqlite(join(dir, "data.db"));
    try {
      const pragma = async (name: string): Promise<unknown> => {
        const { rows } = await sql<Record<string, unknown>>`${sql.raw(`pragma ${name}`)}`.execute(
          db,
        );
        return Object.values(rows[0] ?? {})[0];
      };
      expect(await pragma("journal_mode")).toBe("wal");
      expect(await pragma("foreign_keys")).toBe(1);
      expect(await pragma("busy_timeout")).toBe(5000);
      // 1 = NORMAL: each commit is in the WAL before it returns; fsync at checkpoints.
      expect(await pragma("synchronous")).toBe(1);
    } finally {
      await close();
    }
  });

  it("creates entity tables as STRICT and WITHOUT ROWID", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-sqlite-"));
    dirs.push(dir);
    const opened = openSqlite(join(dir, "data.db"));
    try {
      const manifest = parseManifest({
        manifest_version: 1,
        name: "t",
        version: "1",
        entities: [{ name: "Note", fields: [{ name: "text", type: "string" }] }],
      });
      await createStore({ ...opened, manifest }).migrate();
      const { rows } = await sql<{ strict: number; wr: number }>`
        select "strict", "wr" from pragma_table_list where name = 'Note'`.execute(opened.db);
      expect(rows).toEqual([{ strict: 1, wr: 1 }]);
    } finally {
      await opened.close();
    }
  });
});
