import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Kysely, sql } from "kysely";
import { describe, expect, it, vi } from "vitest";
import {
  adminAuth,
  createStore,
  type EntityTables,
  isUniqueViolation,
  type PackageMigrations,
  StoreError,
} from "../src/index.js";
import { openSqlite } from "../src/sqlite.js";
import { baseManifest, databases, manifestOf, useStore } from "./fixture.js";

/** A package with one table of its own, `pkg_notes`, in two migration steps. */
function notesPackage(upCalls: string[] = [], schema?: string): PackageMigrations {
  return {
    owner: "@test/notes",
    ...(schema !== undefined && { schema }),
    migrations: [
      {
        id: "001_table",
        async up(db) {
          upCalls.push("001_table");
          await db.schema
            .createTable("pkg_notes")
            .addColumn("id", "text", (col) => col.primaryKey())
            .addColumn("body", "text", (col) => col.notNull())
            .execute();
        },
      },
      {
        id: "002_column",
        async up(db) {
          upCalls.push("002_column");
          await db.schema.alterTable("pkg_notes").addColumn("extra", "text").execute();
        },
      },
    ],
  };
}

async function countNotes(db: Kysely<EntityTables>): Promise<number> {
  const row = await db
    .selectFrom("pkg_notes")
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(databases)("package-owned tables on $name", (database) => {
  const fixture = useStore(database);

  it("applies each package migration once and reports it", async () => {
    const calls: string[] = [];
    const first = await fixture().store.migrate({ packages: [notesPackage(calls)] });
    expect(first.applied).toStrictEqual(["@test/notes 001_table", "@test/notes 002_column"]);
    const second = await fixture()
      .reopen()
      .migrate({ packages: [notesPackage(calls)] });
    expect(second.applied).toStrictEqual([]);
    expect(calls).toStrictEqual(["001_table", "002_column"]);
    expect(await countNotes(fixture().database.db)).toBe(0);
  });

  it("leaves the database unchanged when a step fails, naming the package and step", async () => {
    const broken: PackageMigrations = {
      owner: "@test/broken",
      migrations: [
        {
          id: "001_ok",
          up: (db) =>
            db.schema
              .createTable("pkg_half")
              .addColumn("id", "text", (col) => col.primaryKey())
              .execute(),
        },
        {
          id: "002_fails",
          up: async (db) => {
            await sql`select * from no_such_table`.execute(db);
          },
        },
      ],
    };
    const error = await fixture()
      .store.migrate({ packages: [broken] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe("MIGRATION_FAILED");
    expect((error as StoreError).message).toContain("@test/broken migration 002_fails");
    await expect(sql`select * from pkg_half`.execute(fixture().database.db)).rejects.toBeDefined();
  });

  it("refuses a package that lists one migration id twice", async () => {
    const twice = notesPackage();
    const duplicated: PackageMigrations = {
      ...twice,
      migrations: [...twice.migrations, ...twice.migrations.slice(0, 1)],
    };
    await expect(fixture().store.migrate({ packages: [duplicated] })).rejects.toThrow(
      /lists migration 001_table twice/,
    );
  });

  it("commits entity and package writes together, with change events after commit", async () => {
    await fixture().store.migrate({ packages: [notesPackage()] });
    const listener = vi.fn();
    fixture().store.onChange(listener);
    const list = await fixture().store.frameworkTransaction(adminAuth, async (tx) => {
      const row = await tx.entities.insert("List", { title: "with a note" });
      await tx.db.insertInto("pkg_notes").values({ id: row.id, body: "hello" }).execute();
      expect(listener).not.toHaveBeenCalled();
      return row;
    });
    expect(await countNotes(fixture().database.db)).toBe(1);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(listener.mock.calls[0]?.[0]).toMatchObject([
      { entity: "List", op: "insert", id: list.id },
    ]);
  });

  it("isUniqueViolation recognizes a duplicate key in a package table and in an entity", async () => {
    await fixture().store.migrate({ packages: [notesPackage()] });
    const insert = () =>
      fixture().store.frameworkTransaction(adminAuth, (tx) =>
        tx.db.insertInto("pkg_notes").values({ id: "same", body: "x" }).execute(),
      );
    await insert();
    const raw = await insert().catch((error: unknown) => error);
    expect(isUniqueViolation(raw)).toBe(true);
    const entity = await fixture()
      .store.transaction(adminAuth, async (tx) => {
        const row = await tx.insert("List", { title: "a" });
        await tx.insert("List", { id: row.id, title: "b" });
      })
      .catch((error: unknown) => error);
    expect(entity).toBeInstanceOf(StoreError);
    expect(isUniqueViolation(entity)).toBe(true);
    expect(isUniqueViolation(new Error("UNIQUE constraint failed: x.y"))).toBe(false);
    expect(isUniqueViolation(undefined)).toBe(false);
  });

  it("rolls back both when the work throws, and emits nothing", async () => {
    await fixture().store.migrate({ packages: [notesPackage()] });
    const listener = vi.fn();
    fixture().store.onChange(listener);
    const failure = new Error("after both writes");
    await expect(
      fixture().store.frameworkTransaction(adminAuth, async (tx) => {
        const row = await tx.entities.insert("List", { title: "gone" });
        await tx.db.insertInto("pkg_notes").values({ id: row.id, body: "gone" }).execute();
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await countNotes(fixture().database.db)).toBe(0);
    expect((await fixture().store.reader(adminAuth).query("List")).rows).toStrictEqual([]);
    expect(listener).not.toHaveBeenCalled();
  });
});

describe("package tables in an attached SQLite database", () => {
  it("keeps the tables and their history beside each other, in the attached file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-attach-"));
    try {
      const manifest = manifestOf(baseManifest);
      const open = () =>
        openSqlite(join(dir, "app.db"), { attach: { side: join(dir, "side.db") } });
      const first = open();
      const store = createStore({ ...first, manifest });
      const report = await store.migrate({ packages: [notesPackage([], "side")] });
      expect(report.applied).toContain("@test/notes 002_column");
      await store.frameworkTransaction(adminAuth, async (tx) => {
        await tx.db
          .withSchema("side")
          .insertInto("pkg_notes")
          .values({ id: "n1", body: "x" })
          .execute();
      });
      await store.close();

      const again = open();
      const reopened = createStore({ ...again, manifest });
      expect(
        (await reopened.migrate({ packages: [notesPackage([], "side")] })).applied,
      ).toStrictEqual([]);
      expect(await countNotes(again.db.withSchema("side"))).toBe(1);
      // Nothing of the package landed in the main file.
      await expect(sql`select * from main.pkg_notes`.execute(again.db)).rejects.toBeDefined();
      await reopened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("starts an in-memory attached database afresh on every open, history included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-attach-"));
    try {
      const manifest = manifestOf(baseManifest);
      for (let round = 0; round < 2; round++) {
        const opened = openSqlite(join(dir, "app.db"), { attach: { side: ":memory:" } });
        const store = createStore({ ...opened, manifest });
        const report = await store.migrate({ packages: [notesPackage([], "side")] });
        expect(report.applied).toContain("@test/notes 001_table");
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses an attach name that is not a plain identifier", () => {
    expect(() => openSqlite(":memory:", { attach: { "x; drop": ":memory:" } })).toThrow(TypeError);
  });
});
