import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ManifestInput } from "@svc/schema";
import { postgresTestDatabase, postgresUrl } from "@svc/tooling/databases";
import { type Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import {
  adminAuth,
  createAuthContext,
  createMembershipLookup,
  createStore,
  type EntityTables,
  type Row,
  type StoreDatabase,
} from "../src/index.js";
import { openPostgres } from "../src/pg.js";
import { openSqlite } from "../src/sqlite.js";
import { databases, manifestOf, useStore } from "./fixture.js";
import { MEMBERS_OF_PROJECT_ORG, orgEntities, testManifest } from "./manifests.js";

// Reads outside a transaction go through the read pool (`readDb`): a
// separate pool on Postgres, a separate read-only connection on a SQLite
// file. These tests hold a write transaction open with a gate (no timers)
// and read meanwhile, and check that every acknowledged write is seen.

/** A promise the test resolves itself. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const manifest = testManifest(
  "read-pool",
  [
    {
      name: "List",
      fields: [
        { name: "title", type: "string" },
        { name: "archived", type: "bool", optional: true },
      ],
    },
    ...orgEntities,
  ],
  {
    policies: [
      {
        name: "members see their org's projects",
        entity: "Project",
        allowRead: MEMBERS_OF_PROJECT_ORG,
      },
    ],
  },
);

const alice = createAuthContext({ userId: "alice" });

describe.each(databases)("read pool on $name", (database) => {
  const fixture = useStore(database, { manifest });

  it("has a read pool apart from the writer on a file or server database", () => {
    expect(fixture().database.readDb).not.toBe(fixture().database.db);
  });

  it("answers reads while a write transaction is held open, without its uncommitted rows", async () => {
    const { store } = fixture();
    const committed = await store.transaction(adminAuth, (tx) =>
      tx.insert("List", { title: "committed" }),
    );
    const inside = gate<Row>();
    const release = gate();
    const writing = store.transaction(adminAuth, async (tx) => {
      const row = await tx.insert("List", { title: "pending" });
      await tx.update("List", committed.id, { title: "changed, not committed" });
      inside.open(row);
      await release.promise;
      return row;
    });
    const pending = await inside.promise;

    // Before the fix these waited for the writer's only connection (SQLite)
    // until the transaction ended; here it ends only after they answered.
    expect(await store.reader(adminAuth).get("List", pending.id)).toBeNull();
    expect((await store.reader(adminAuth).query("List")).rows).toStrictEqual([committed]);
    expect(await store.systemReader().get("List", committed.id)).toStrictEqual(committed);

    release.open();
    expect(await writing).toStrictEqual(pending);
    expect(await store.reader(adminAuth).get("List", pending.id)).toStrictEqual(pending);
    expect(await store.reader(adminAuth).get("List", committed.id)).toMatchObject({
      title: "changed, not committed",
    });
    // The readiness ping checks the writer and the read pool (it waits for a
    // writer held by a transaction, as before).
    await store.ping();
  });

  it("runs a read policy's exists(...) on the read pool while a write is held open", async () => {
    const { store } = fixture();
    const project = await store.transaction(adminAuth, async (tx) => {
      await tx.insert("OrgMember", { orgId: "org-1", userId: "alice", role: "member" });
      return tx.insert("Project", { orgId: "org-1", name: "visible" });
    });
    const inside = gate();
    const release = gate();
    const writing = store.transaction(adminAuth, async (tx) => {
      await tx.insert("Project", { orgId: "org-1", name: "not yet" });
      await tx.insert("OrgMember", { orgId: "org-2", userId: "alice", role: "member" });
      await tx.insert("Project", { orgId: "org-2", name: "not yet either" });
      inside.open();
      await release.promise;
    });
    await inside.promise;
    expect((await store.reader(alice).query("Project")).rows).toStrictEqual([project]);
    expect(await createMembershipLookup(store).rolesOf("org-2", "alice")).toBeNull();
    release.open();
    await writing;
    expect((await store.reader(alice).query("Project", { limit: 10 })).rows).toHaveLength(3);
    expect(await createMembershipLookup(store).rolesOf("org-2", "alice")).toStrictEqual(["member"]);
  });

  it("sees every write as soon as its transaction has returned (read-your-writes)", async () => {
    const { store } = fixture();
    const reader = store.reader(adminAuth);
    const rows: Row[] = [];
    for (let i = 0; i < 25; i += 1) {
      const row = await store.transaction(adminAuth, (tx) =>
        tx.insert("List", { title: `list ${i}`, archived: i % 2 === 0 }),
      );
      rows.push(row);
      expect(await reader.get("List", row.id)).toStrictEqual(row);
      expect((await reader.query("List", { limit: 1000 })).rows).toHaveLength(i + 1);
      const updated = await store.transaction(adminAuth, (tx) =>
        tx.update("List", row.id, { title: `renamed ${i}` }),
      );
      expect(await reader.get("List", row.id)).toStrictEqual(updated);
      expect(await store.systemReader().get("List", row.id)).toStrictEqual(updated);
    }
    for (const row of rows) {
      await store.transaction(adminAuth, (tx) => tx.delete("List", row.id));
      expect(await reader.get("List", row.id)).toBeNull();
    }
    expect((await reader.query("List")).rows).toStrictEqual([]);
  });

  it("sees concurrent writes once each has returned", async () => {
    const { store } = fixture();
    const written = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const row = await store.transaction(adminAuth, (tx) =>
          tx.insert("List", { title: `concurrent ${i}` }),
        );
        // Read right after this write returned, while others may still be running.
        expect(await store.reader(adminAuth).get("List", row.id)).toStrictEqual(row);
        return row;
      }),
    );
    const listed = (await store.reader(adminAuth).query("List", { limit: 1000 })).rows;
    expect(new Set(listed.map((row) => row.id))).toStrictEqual(
      new Set(written.map((row) => row.id)),
    );
  });

  it("reads through the transaction inside it (systemReader sees its own writes)", async () => {
    const { store } = fixture();
    await store.frameworkTransaction(adminAuth, async ({ entities }) => {
      const row = await entities.insert("List", { title: "own write" });
      expect(await store.systemReader().get("List", row.id)).toStrictEqual(row);
    });
  });

  it("closes the writer and the read pool with the store", async () => {
    const { store, database: opened } = fixture();
    await store.reader(adminAuth).query("List");
    await store.close();
    await expect(sql`select 1`.execute(opened.readDb)).rejects.toThrow();
    await expect(sql`select 1`.execute(opened.db)).rejects.toThrow();
    // The fixture closes the database again: a second close is a no-op.
  });
});

describe("openSqlite's read connection", () => {
  const dirs: string[] = [];
  const opened: StoreDatabase[] = [];
  afterEach(async () => {
    for (const database of opened.splice(0)) await database.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), "svc-read-pool-"));
    dirs.push(dir);
    return dir;
  };
  const open = (...args: Parameters<typeof openSqlite>): StoreDatabase => {
    const database = openSqlite(...args);
    opened.push(database);
    return database;
  };
  const rowsOf = async (db: Kysely<EntityTables>, query: string): Promise<unknown[]> =>
    (await sql`${sql.raw(query)}`.execute(db)).rows;

  it("is read-only and carries the writer's attached files (not its in-memory ones)", async () => {
    const dir = tempDir();
    const database = open(join(dir, "app.db"), {
      attach: { jobs: join(dir, "jobs.db"), auth: ":memory:" },
    });
    await sql`create table jobs.queue (name text)`.execute(database.db);
    await sql`insert into jobs.queue values ('first')`.execute(database.db);
    expect(await rowsOf(database.readDb, "select name from jobs.queue")).toStrictEqual([
      { name: "first" },
    ]);
    const schemas = (await rowsOf(database.readDb, "pragma database_list")).map(
      (row) => (row as { name: string }).name,
    );
    expect(schemas).toStrictEqual(["main", "jobs"]);
    await expect(
      sql`insert into jobs.queue values ('second')`.execute(database.readDb),
    ).rejects.toThrow(/readonly/);
    await expect(sql`create table t (a)`.execute(database.readDb)).rejects.toThrow(/readonly/);
  });

  it("keeps one connection for :memory: and when readConnection is false", async () => {
    const memory = open(":memory:");
    expect(memory.readDb).toBe(memory.db);
    const single = open(join(tempDir(), "app.db"), { readConnection: false });
    expect(single.readDb).toBe(single.db);
    const store = createStore({ ...memory, manifest: manifestOf(manifest) });
    await store.migrate();
    const row = await store.transaction(adminAuth, (tx) => tx.insert("List", { title: "m" }));
    expect(await store.reader(adminAuth).get("List", row.id)).toStrictEqual(row);
    await store.ping();
  });

  it("sees tables and columns a migration adds after it first read", async () => {
    const database = open(join(tempDir(), "app.db"));
    const first = createStore({ ...database, manifest: manifestOf(manifest) });
    await first.migrate();
    expect((await first.reader(adminAuth).query("List")).rows).toStrictEqual([]);
    const grown = manifestOf({
      ...manifest,
      entities: [
        ...manifest.entities.map((entity) =>
          entity.name === "List"
            ? {
                ...entity,
                fields: [...entity.fields, { name: "color", type: "string", optional: true }],
              }
            : entity,
        ),
        { name: "Tag", fields: [{ name: "label", type: "string" }] },
      ],
    } as ManifestInput);
    const second = createStore({ ...database, manifest: grown });
    await second.migrate();
    const tag = await second.transaction(adminAuth, (tx) => tx.insert("Tag", { label: "x" }));
    const list = await second.transaction(adminAuth, (tx) =>
      tx.insert("List", { title: "t", color: "red" }),
    );
    expect(await second.reader(adminAuth).get("Tag", tag.id)).toStrictEqual(tag);
    expect(await second.reader(adminAuth).get("List", list.id)).toStrictEqual(list);
  });
});

const postgres = postgresTestDatabase();

describe.runIf(postgres !== undefined)("openPostgres's read pool", () => {
  const targets: Awaited<ReturnType<NonNullable<typeof postgres>["create"]>>[] = [];
  const opened: StoreDatabase[] = [];
  afterEach(async () => {
    for (const database of opened.splice(0)) await database.close();
    for (const target of targets.splice(0)) await postgres?.destroy(target);
  });
  const open = async (options?: Parameters<typeof openPostgres>[1]): Promise<StoreDatabase> => {
    if (postgres === undefined) throw new Error("no Postgres");
    const target = await postgres.create();
    targets.push(target);
    const database = openPostgres(postgresUrl(target), options);
    opened.push(database);
    return database;
  };
  const show = async (db: Kysely<EntityTables>, name: string): Promise<unknown> => {
    const { rows } = await sql<Record<string, unknown>>`${sql.raw(`show ${name}`)}`.execute(db);
    return Object.values(rows[0] ?? {})[0];
  };

  /**
   * How many connections the pool behind `db` opens at most: `holders`
   * transactions each wait until `expected` of them hold a connection, then
   * all finish. With a smaller pool the gate would never open (the test
   * times out); with a larger one more distinct backends would appear.
   */
  async function distinctBackends(
    db: Kysely<EntityTables>,
    holders: number,
    expected: number,
  ): Promise<number> {
    const pids = new Set<number>();
    let holding = 0;
    const full = gate();
    await Promise.all(
      Array.from({ length: holders }, () =>
        db.transaction().execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          pids.add(Number(rows[0]?.pid));
          holding += 1;
          if (holding === expected) full.open();
          await full.promise;
        }),
      ),
    );
    return pids.size;
  }

  it("opens at most 4 read connections by default (the spec's read pool)", async () => {
    const database = await open();
    expect(await distinctBackends(database.readDb, 8, 4)).toBe(4);
  });

  it("sizes the read pool by readMax and shares the writer pool at 0", async () => {
    const sized = await open({ readMax: 2, max: 3 });
    expect(await distinctBackends(sized.readDb, 5, 2)).toBe(2);
    expect(await distinctBackends(sized.db, 6, 3)).toBe(3);
    const shared = await open({ readMax: 0 });
    expect(shared.readDb).toBe(shared.db);
  });

  it("makes read sessions read-only and both pools' time zone UTC", async () => {
    const database = await open();
    expect(await show(database.readDb, "transaction_read_only")).toBe("on");
    expect(await show(database.db, "transaction_read_only")).toBe("off");
    expect(await show(database.readDb, "timezone")).toBe("UTC");
    expect(await show(database.db, "timezone")).toBe("UTC");
    await expect(sql`create table t (a int)`.execute(database.readDb)).rejects.toThrow(/read-only/);
  });

  it.each([
    [{ readMax: -1 }, /readMax/],
    [{ readMax: 1.5 }, /readMax/],
    [{ max: 0 }, /max/],
  ])("refuses pool sizes %o", (options, message) => {
    expect(() => openPostgres("postgres://nobody@127.0.0.1:1/none", options)).toThrow(message);
  });
});
