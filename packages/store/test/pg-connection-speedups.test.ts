import { postgresTestDatabase, type TestDatabaseTarget } from "@svc/tooling/databases";
import { CompiledQuery, type Kysely, sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { COMMIT_WITH_THIS } from "../src/index.js";
import { openPostgres } from "../src/pg.js";
import { MAX_NAMED_STATEMENTS } from "../src/pg-named-statements.js";

// On Postgres the store's pools run repeated writes as named prepared
// statements: Postgres parses and plans them once per connection. One
// connection per pool here, so `pg_prepared_statements` (which lists the
// current session's) shows what the pool prepared.

const postgres = postgresTestDatabase();

type Notes = Kysely<Record<string, Record<string, unknown>>>;

/**
 * A fresh schema per test holding a `notes` table, written through a pool of
 * `max` connections (`db`); with `other`, a second pool that sees only what
 * was committed.
 */
function useNotesTable(options: { max: number; other: boolean }) {
  let target: Extract<TestDatabaseTarget, { dialect: "postgres" }> | undefined;
  const pools: ReturnType<typeof openPostgres>[] = [];
  const open = (max: number): Notes => {
    if (target === undefined) throw new Error("no test database yet");
    const pool = openPostgres(target.url, { max, readMax: 0 });
    pools.push(pool);
    return pool.db as unknown as Notes;
  };
  const notes = {
    db: undefined as unknown as Notes,
    other: undefined as unknown as Notes,
    /** The ids of the notes another connection sees. */
    visibleElsewhere: async (): Promise<number[]> =>
      (await sql<{ id: number }>`select id from notes order by id`.execute(notes.other)).rows.map(
        (row) => row.id,
      ),
  };
  beforeEach(async () => {
    target = (await postgres?.create()) as typeof target;
    notes.db = open(options.max);
    if (options.other) notes.other = open(1);
    await sql`create table notes (id integer primary key, body text)`.execute(notes.db);
  });
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.close();
    if (target !== undefined) await postgres?.destroy(target);
  });
  return notes;
}

describe.skipIf(postgres === undefined)("named write statements on Postgres", () => {
  const notes = useNotesTable({ max: 1, other: false });

  const prepared = async (): Promise<{ name: string; statement: string }[]> =>
    (
      await sql<{ name: string; statement: string }>`
        select name, statement from pg_prepared_statements order by name`.execute(notes.db)
    ).rows;

  it("prepares a repeated insert, update and delete once and leaves reads unprepared", async () => {
    for (let id = 1; id <= 3; id += 1) {
      await notes.db
        .insertInto("notes")
        .values({ id, body: `note ${id}` })
        .execute();
      await notes.db.updateTable("notes").set({ body: "edited" }).where("id", "=", id).execute();
    }
    await notes.db.deleteFrom("notes").where("id", "=", 1).execute();
    await notes.db.deleteFrom("notes").where("id", "=", 2).execute();
    const rows = await notes.db.selectFrom("notes").selectAll().where("id", "=", 3).execute();
    expect(rows).toEqual([{ id: 3, body: "edited" }]);
    const statements = await prepared();
    expect(statements.map((row) => row.statement.split(" ")[0])).toEqual([
      "insert",
      "update",
      "delete",
    ]);
    expect(statements.map((row) => row.name)).toEqual(["svc_w0", "svc_w1", "svc_w2"]);
  });

  it("keeps working after a migration adds a column", async () => {
    await notes.db.insertInto("notes").values({ id: 1, body: "a" }).execute();
    await sql`alter table notes add column tag text default 'none'`.execute(notes.db);
    await notes.db.insertInto("notes").values({ id: 2, body: "b" }).execute();
    const rows = await notes.db.selectFrom("notes").selectAll().orderBy("id").execute();
    expect(rows).toEqual([
      { id: 1, body: "a", tag: "none" },
      { id: 2, body: "b", tag: "none" },
    ]);
  });

  it("prepares a statement afresh when a column it returns changed type", async () => {
    const insert = (id: number) =>
      sql<{
        body: unknown;
      }>`insert into notes (id, body) values (${id}, ${"7"}) returning body`.execute(notes.db);
    expect((await insert(1)).rows).toEqual([{ body: "7" }]);
    await sql`alter table notes alter column body type integer using body::integer`.execute(
      notes.db,
    );
    // The first execution after the change fails (its parameter's type was
    // fixed as text when it was prepared); the next is prepared afresh.
    await expect(insert(2)).rejects.toMatchObject({ code: "42804" });
    expect((await insert(3)).rows).toEqual([{ body: 7 }]);
  });

  it(`names at most ${MAX_NAMED_STATEMENTS} statements; later ones run unnamed`, async () => {
    for (let id = 0; id < MAX_NAMED_STATEMENTS + 20; id += 1) {
      // A distinct text each time: another column alias.
      await sql`insert into notes (id, body) values (${id}, ${"x"}) returning id as ${sql.ref(`n${id}`)}`.execute(
        notes.db,
      );
    }
    expect(await prepared()).toHaveLength(MAX_NAMED_STATEMENTS);
    const count = await sql<{ count: number }>`select count(*)::int as count from notes`.execute(
      notes.db,
    );
    expect(count.rows[0]?.count).toBe(MAX_NAMED_STATEMENTS + 20);
  });
});

// A transaction's `begin` travels with its first statement (one round trip
// fewer per transaction). These check that every transaction still is one:
// invisible to others until it commits, gone after a rollback or an error.
describe.skipIf(postgres === undefined)("begin sent with the first statement on Postgres", () => {
  const notes = useNotesTable({ max: 2, other: true });

  it("keeps a transaction's first write from others until it commits", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted!: () => void;
    const written = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const transaction = notes.db.transaction().execute(async (trx) => {
      await trx.insertInto("notes").values({ id: 1, body: "a" }).execute();
      inserted();
      await held;
      await trx.insertInto("notes").values({ id: 2, body: "b" }).execute();
    });
    await written;
    expect(await notes.visibleElsewhere()).toEqual([]);
    release();
    await transaction;
    expect(await notes.visibleElsewhere()).toEqual([1, 2]);
  });

  it("leaves nothing after a rollback, and nothing after a failed first statement", async () => {
    await expect(
      notes.db.transaction().execute(async (trx) => {
        await trx.insertInto("notes").values({ id: 1, body: "a" }).execute();
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    await notes.db.insertInto("notes").values({ id: 5, body: "e" }).execute();
    await expect(
      notes.db.transaction().execute(async (trx) => {
        // The first statement fails (duplicate key): nothing else may land.
        await trx.insertInto("notes").values({ id: 5, body: "again" }).execute();
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await notes.visibleElsewhere()).toEqual([5]);
    // The connections are fine afterwards.
    await notes.db.transaction().execute(async (trx) => {
      await trx.insertInto("notes").values({ id: 6, body: "f" }).execute();
    });
    expect(await notes.visibleElsewhere()).toEqual([5, 6]);
  });

  it("reads its own writes, and runs an empty transaction", async () => {
    await notes.db.transaction().execute(async () => undefined);
    const seen = await notes.db.transaction().execute(async (trx) => {
      const before = await trx.selectFrom("notes").select("id").execute();
      await trx.insertInto("notes").values({ id: 3, body: "c" }).execute();
      const after = await trx.selectFrom("notes").select("id").execute();
      return { before: before.length, after: after.length };
    });
    expect(seen).toEqual({ before: 0, after: 1 });
  });

  it("holds a row lock taken by the first statement until the end", async () => {
    await notes.db.insertInto("notes").values({ id: 1, body: "a" }).execute();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = notes.db.transaction().execute(async (trx) => {
      await trx.selectFrom("notes").selectAll().where("id", "=", 1).forUpdate().execute();
      locked();
      await held;
    });
    await lockTaken;
    const noWait = sql`select id from notes where id = 1 for update nowait`.execute(notes.other);
    await expect(noWait).rejects.toMatchObject({ code: "55P03" });
    release();
    await holder;
  });
});

// The last statement of a transaction, marked COMMIT_WITH_THIS, travels with
// the commit: it is committed when its answer arrives.
describe.skipIf(postgres === undefined)("a last statement sent with the commit on Postgres", () => {
  const notes = useNotesTable({ max: 2, other: true });
  const last = (id: number) =>
    CompiledQuery.raw(`${COMMIT_WITH_THIS}insert into notes (id, body) values ($1, $2)`, [id, "x"]);

  it("commits the whole transaction with its last statement", async () => {
    const seenAtLast = await notes.db.transaction().execute(async (trx) => {
      await trx.insertInto("notes").values({ id: 1, body: "a" }).execute();
      await trx.executeQuery(last(2));
      // Already committed: another connection sees both rows.
      return notes.visibleElsewhere();
    });
    expect(seenAtLast).toEqual([1, 2]);
    expect(await notes.visibleElsewhere()).toEqual([1, 2]);
    // The connection goes on with the next transaction as usual.
    await notes.db.transaction().execute(async (trx) => {
      await trx.insertInto("notes").values({ id: 3, body: "c" }).execute();
    });
    expect(await notes.visibleElsewhere()).toEqual([1, 2, 3]);
  });

  it("runs a one-statement transaction (begin, statement, commit) in one message", async () => {
    await notes.db.transaction().execute(async (trx) => {
      await trx.executeQuery(last(7));
    });
    expect(await notes.visibleElsewhere()).toEqual([7]);
  });

  it("commits nothing when the last statement fails", async () => {
    await notes.db.insertInto("notes").values({ id: 2, body: "b" }).execute();
    await expect(
      notes.db.transaction().execute(async (trx) => {
        await trx.insertInto("notes").values({ id: 1, body: "a" }).execute();
        await trx.executeQuery(last(2)); // a duplicate key
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await notes.visibleElsewhere()).toEqual([2]);
    await notes.db.transaction().execute(async (trx) => {
      await trx.executeQuery(last(4));
    });
    expect(await notes.visibleElsewhere()).toEqual([2, 4]);
  });
});
