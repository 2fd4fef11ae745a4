import { matchTarget, testDatabases } from "@svc/tooling/databases";
import { beforeEach, describe, expect, it } from "vitest";
import { appServerPerTest } from "./app-server.js";
import {
  type AuthTestServer,
  errorOf,
  readJSON,
  registerPassword,
  request,
} from "./auth-fixtures.js";
import { entity, OWNER, ownRowsPolicy, signInManifest, writeTestApp } from "./test-app.js";

// `Idempotency-Key` on the write routes, through the composed server on
// every database: a replay answers the recorded response and writes
// nothing, a reused key for another write is 409, a failed write records
// nothing, concurrent duplicates write once, keys expire after 24 hours.

/** Test switches the function files read (they load into this process). */
interface Switches {
  failNextNote?: boolean;
  /** Held by `addNote` after its insert, inside the transaction. */
  noteGate?: Promise<void>;
  noteEntered?: () => void;
  /** Held by `slowNote` (an action) before it writes. */
  actionGate?: Promise<void>;
  actionEntered?: () => void;
}
const switches = globalThis as unknown as { __idempotencyTest: Switches };
switches.__idempotencyTest = {};

function writeApp(dir: string): string {
  const manifest = signInManifest("idempotency-app", {
    entities: [entity("Note", { body: "string", ownerId: OWNER })],
    policies: [ownRowsPolicy("own notes", "Note", { edits: true })],
  });
  return writeTestApp(dir, manifest, {
    addNote: `export default {
  type: "mutation",
  handler: async (ctx, args) => {
    const test = globalThis.__idempotencyTest;
    const note = await ctx.db.insert("Note", { body: args.body });
    if (test.failNextNote) {
      test.failNextNote = false;
      ctx.error("NOTE_FAILED", "The note failed after its insert.", 503);
    }
    if (test.noteGate) {
      test.noteEntered?.();
      await test.noteGate;
    }
    return { id: note.id, body: note.body };
  },
};
`,
    countNotes: `export default {
  type: "query",
  handler: async (ctx) => (await ctx.db.query("Note", { limit: 1000 })).rows.length,
};
`,
    slowNote: `export default {
  type: "action",
  handler: async (ctx, args) => {
    const test = globalThis.__idempotencyTest;
    if (test.actionGate) {
      test.actionEntered?.();
      await test.actionGate;
    }
    if (args.fail) ctx.error("ACTION_FAILED", "The action failed.", 400);
    return ctx.runMutation("addNote", { body: args.body });
  },
};
`,
  });
}

/** A promise with its resolver, for the function files' gates. */
function gate(): { promise: Promise<void>; open(): void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/**
 * Holds `addNote` ("note") or `slowNote` ("action") calls at the function's
 * gate: `entered` settles once one waits there; `release` opens the gate and
 * takes it away, so later calls run straight through.
 */
function holdAtGate(kind: "note" | "action"): { entered: Promise<void>; release(): void } {
  const held = gate();
  const entered = gate();
  const test = switches.__idempotencyTest;
  test[`${kind}Gate`] = held.promise;
  test[`${kind}Entered`] = entered.open;
  return {
    entered: entered.promise,
    release: () => {
      test[`${kind}Gate`] = undefined;
      held.open();
    },
  };
}

describe.each(testDatabases())("Idempotency-Key on $name", (database) => {
  beforeEach(() => {
    switches.__idempotencyTest = {};
  });
  const app = appServerPerTest(database, { writeApp, env: { SVC_RATE_LIMIT: "off" } });
  let server: AuthTestServer;
  let token: string;

  beforeEach(async () => {
    server = app.server;
    token = (await registerPassword(server, "ada@example.com")).token;
  });

  const call = (name: string, body: unknown, key?: string, as = token) =>
    request(server, "POST", `/api/fn/${name}`, {
      body,
      token: as,
      ...(key !== undefined && { headers: { "idempotency-key": key } }),
    });

  async function noteCount(): Promise<number> {
    const answer = await readJSON<number>(call("countNotes", {}));
    expect(answer.status).toBe(200);
    return answer.body;
  }

  it("a replayed mutation answers the recorded response and writes once", async () => {
    const first = await readJSON<{ id: string }>(call("addNote", { body: "milk" }, "key-1"));
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await readJSON<{ id: string }>(call("addNote", { body: "milk" }, "key-1"));
    expect(again).toMatchObject({ status: 200, body: first.body });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await noteCount()).toBe(1);
    // Without a key nothing is recorded: the same call writes again.
    await call("addNote", { body: "milk" });
    expect(await noteCount()).toBe(2);
  });

  it("keys belong to their caller: another user's same key runs anew", async () => {
    const bob = (await registerPassword(server, "bob@example.com")).token;
    const ada = await readJSON<{ id: string }>(call("addNote", { body: "x" }, "shared"));
    const bobs = await readJSON<{ id: string }>(call("addNote", { body: "x" }, "shared", bob));
    expect(bobs.status).toBe(200);
    expect(bobs.body.id).not.toBe(ada.body.id);
    expect(bobs.headers.get("idempotent-replayed")).toBeNull();
  });

  it.each([
    ["different arguments", "addNote", { body: "bread" }],
    ["a different function", "slowNote", { body: "milk" }],
  ])("the same key with %s is 409 IDEMPOTENCY_KEY_REUSED", async (_, name, body) => {
    await call("addNote", { body: "milk" }, "key-2");
    expect(await errorOf(call(name, body, "key-2"))).toMatchObject({
      status: 409,
      code: "IDEMPOTENCY_KEY_REUSED",
    });
    expect(await noteCount()).toBe(1);
  });

  it("a failed mutation records nothing, so its retry runs and succeeds", async () => {
    switches.__idempotencyTest.failNextNote = true;
    expect(await errorOf(call("addNote", { body: "milk" }, "key-3"))).toMatchObject({
      status: 503,
      code: "NOTE_FAILED",
    });
    expect(await noteCount()).toBe(0);
    const retry = await readJSON<{ body: string }>(call("addNote", { body: "milk" }, "key-3"));
    expect(retry).toMatchObject({ status: 200, body: { body: "milk" } });
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(await noteCount()).toBe(1);
  });

  it("concurrent duplicates run the mutation once and both get its answer", async () => {
    const held = holdAtGate("note");
    const first = readJSON<{ id: string }>(call("addNote", { body: "race" }, "key-4"));
    await held.entered;
    // The first holds its transaction (and the key) open while the second arrives.
    const second = readJSON<{ id: string }>(call("addNote", { body: "race" }, "key-4"));
    await matchTarget(app.target, {
      sqlite: async () => undefined,
      // Wait until the second is really blocked on the key's row lock.
      postgres: async ({ url }) => {
        await expect.poll(() => blockedOnLock(url)).toBe(true);
      },
    });
    held.release();
    const [a, b] = await Promise.all([first, second]);
    expect(a.status).toBe(200);
    expect(b).toMatchObject({ status: 200, body: a.body });
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(await noteCount()).toBe(1);
  });

  it("an action holds its key while it runs (409 IN_PROGRESS), then replays its answer", async () => {
    const held = holdAtGate("action");
    const running = readJSON<{ id: string }>(call("slowNote", { body: "act" }, "key-5"));
    await held.entered;
    expect(await errorOf(call("slowNote", { body: "act" }, "key-5"))).toMatchObject({
      status: 409,
      code: "IDEMPOTENCY_KEY_IN_PROGRESS",
    });
    held.release();
    const done = await running;
    expect(done.status).toBe(200);
    const replay = await readJSON<{ id: string }>(call("slowNote", { body: "act" }, "key-5"));
    expect(replay).toMatchObject({ status: 200, body: done.body });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await noteCount()).toBe(1);
  });

  it("a failed action releases its key", async () => {
    expect(await errorOf(call("slowNote", { body: "a", fail: true }, "key-6"))).toMatchObject({
      status: 400,
      code: "ACTION_FAILED",
    });
    // Same key, same arguments: runs again (and fails again), not 409.
    expect(await errorOf(call("slowNote", { body: "a", fail: true }, "key-6"))).toMatchObject({
      code: "ACTION_FAILED",
    });
    expect(await noteCount()).toBe(0);
  });

  it("a key expires after 24 hours: the same key then runs the write again", async () => {
    await call("addNote", { body: "milk" }, "key-7");
    server.clock.advance(24 * 60 * 60 * 1000 - 1);
    const replay = await call("addNote", { body: "milk" }, "key-7");
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    server.clock.advance(1);
    const fresh = await call("addNote", { body: "milk" }, "key-7");
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
    expect(await noteCount()).toBe(2);
  });

  it.each([
    ["empty", ""],
    ["too long", "k".repeat(256)],
    ["not printable ASCII", "key-\u00e9"],
  ])("a malformed key (%s) is 400 INVALID_IDEMPOTENCY_KEY and writes nothing", async (_, key) => {
    expect(await errorOf(call("addNote", { body: "milk" }, key))).toMatchObject({
      status: 400,
      code: "INVALID_IDEMPOTENCY_KEY",
    });
    expect(await noteCount()).toBe(0);
  });

  it("a query accepts a key harmlessly and answers fresh every time", async () => {
    const before = await readJSON<number>(call("countNotes", {}, "key-8"));
    await call("addNote", { body: "milk" });
    const after = await readJSON<number>(call("countNotes", {}, "key-8"));
    expect([before.body, after.body]).toEqual([0, 1]);
    expect(after.headers.get("idempotent-replayed")).toBeNull();
  });

  it("entity insert, update and delete replay their recorded answers", async () => {
    const entity = (method: string, path: string, key: string, body?: unknown) =>
      readJSON<Record<string, unknown>>(
        request(server, method, `/api/entities/Note${path}`, {
          token,
          headers: { "idempotency-key": key },
          ...(body !== undefined && { body }),
        }),
      );
    const inserted = await entity("POST", "", "e-1", { body: "one" });
    expect(inserted.status).toBe(201);
    const insertReplay = await entity("POST", "", "e-1", { body: "one" });
    expect(insertReplay).toMatchObject({ status: 201, body: inserted.body });
    expect(insertReplay.headers.get("idempotent-replayed")).toBe("true");
    expect(await noteCount()).toBe(1);

    const id = String(inserted.body.id);
    const updated = await entity("PATCH", `/${id}`, "e-2", { body: "two" });
    expect(updated).toMatchObject({ status: 200, body: { body: "two" } });
    // A later write changes the row; the replay still answers what the update answered.
    await entity("PATCH", `/${id}`, "e-3", { body: "three" });
    const updateReplay = await entity("PATCH", `/${id}`, "e-2", { body: "two" });
    expect(updateReplay).toMatchObject({ status: 200, body: { body: "two" } });
    expect((await entity("PATCH", `/${id}`, "e-2", { body: "four" })).body).toMatchObject({
      error: { code: "IDEMPOTENCY_KEY_REUSED" },
    });

    const deleted = await entity("DELETE", `/${id}`, "e-4");
    expect(deleted).toMatchObject({ status: 200, body: { deleted: true, id } });
    // Deleting again would be 404; the replay answers the first delete's answer.
    const deleteReplay = await entity("DELETE", `/${id}`, "e-4");
    expect(deleteReplay).toMatchObject({ status: 200, body: { deleted: true, id } });
    expect(deleteReplay.headers.get("idempotent-replayed")).toBe("true");
    expect(await noteCount()).toBe(0);
  });
});

/** Whether some Postgres session of the test database waits on a lock. */
async function blockedOnLock(url: string): Promise<boolean> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query(
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    );
    return (result.rows[0] as { n: number }).n > 0;
  } finally {
    await client.end();
  }
}
