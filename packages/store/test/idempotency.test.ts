import { describe, expect, it } from "vitest";
import {
  ACTION_LEASE_MS,
  adminAuth,
  createIdempotency,
  IDEMPOTENCY_RETENTION_MS,
  type Idempotency,
  IdempotentReplay,
  idempotencyMigrations,
  idempotentWriteOf,
  StoreError,
} from "../src/index.js";
import { adminAs, databases, expectStoreError, todoInput, useStore } from "./fixture.js";

// The store's idempotent writes: one key, one write, across concurrent
// duplicates; a repeat answers the recorded response; a failed write
// records nothing; another write under the same key is refused; keys expire.

const alice = adminAs("user-1");

/** A promise to wait on and the function that resolves it. */
function signal(): { fired: Promise<void>; fire: () => void } {
  let fire: () => void = () => {};
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fired, fire };
}

describe("idempotentWriteOf", () => {
  it.each([
    ["empty", ""],
    ["too long", "k".repeat(256)],
    ["not printable ASCII", "clé"],
  ])("refuses a malformed key (%s) with INVALID_IDEMPOTENCY_KEY", (_name, key) => {
    let thrown: unknown;
    try {
      idempotentWriteOf(alice, key, "fn:x", {});
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StoreError);
    expect((thrown as StoreError).code).toBe("INVALID_IDEMPOTENCY_KEY");
    expect((thrown as StoreError).status).toBe(400);
  });

  it("scopes the key to the caller and hashes the arguments whatever their key order", () => {
    const a = idempotentWriteOf(alice, "k", "fn:x", { a: 1, b: [1, { c: 2, d: 3 }] });
    const b = idempotentWriteOf(alice, "k", "fn:x", { b: [1, { d: 3, c: 2 }], a: 1 });
    expect(a).toEqual(b);
    expect(a.scope).toBe("user:user-1");
    expect(idempotentWriteOf(adminAuth, "k", "fn:x", {}).scope).toBe("admin");
    expect(idempotentWriteOf(alice, "k", "fn:x", { a: 2 }).argsHash).not.toBe(a.argsHash);
  });
});

describe.each(databases)("createIdempotency on $name", (database) => {
  const fixture = useStore(database, { migrate: false });
  let clock = 1_700_000_000_000;

  async function setUp(): Promise<Idempotency> {
    const { store } = fixture();
    await store.migrate({ packages: [idempotencyMigrations()] });
    clock = 1_700_000_000_000;
    return createIdempotency(store, { now: () => clock });
  }

  async function todoCount(): Promise<number> {
    return (await fixture().store.reader(adminAuth).query("Todo")).rows.length;
  }

  it("runs a write once and answers a repeat with the recorded response", async () => {
    const idempotency = await setUp();
    const write = idempotentWriteOf(alice, "key-1", "insert:Todo", todoInput());
    let runs = 0;
    const insert = () =>
      idempotency.transaction(alice, write, 201, async (tx) => {
        runs += 1;
        return tx.entities.insert("Todo", todoInput());
      });
    const first = await insert();
    expect(first).not.toBeInstanceOf(IdempotentReplay);
    const second = await insert();
    expect(second).toBeInstanceOf(IdempotentReplay);
    const { response } = second as IdempotentReplay;
    expect(response.status).toBe(201);
    expect(JSON.parse(response.body)).toEqual(first);
    expect(runs).toBe(1);
    expect(await todoCount()).toBe(1);
  });

  it("refuses the key for another write or other arguments, not for another caller", async () => {
    const idempotency = await setUp();
    const run = (write: ReturnType<typeof idempotentWriteOf>, auth = alice) =>
      idempotency.transaction(auth, write, 200, async () => "done");
    await run(idempotentWriteOf(alice, "key-1", "fn:a", { n: 1 }));
    await expectStoreError(
      run(idempotentWriteOf(alice, "key-1", "fn:a", { n: 2 })),
      "IDEMPOTENCY_KEY_REUSED",
    );
    await expectStoreError(
      run(idempotentWriteOf(alice, "key-1", "fn:b", { n: 1 })),
      "IDEMPOTENCY_KEY_REUSED",
    );
    const bob = adminAs("user-2");
    expect(await run(idempotentWriteOf(bob, "key-1", "fn:a", { n: 2 }), bob)).toBe("done");
  });

  it("records nothing when the write fails: a retry runs it", async () => {
    const idempotency = await setUp();
    const write = idempotentWriteOf(alice, "key-1", "insert:Todo", {});
    await expect(
      idempotency.transaction(alice, write, 201, async (tx) => {
        await tx.entities.insert("Todo", todoInput());
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await todoCount()).toBe(0);
    const retried = await idempotency.transaction(alice, write, 201, (tx) =>
      tx.entities.insert("Todo", todoInput()),
    );
    expect(retried).not.toBeInstanceOf(IdempotentReplay);
    expect(await todoCount()).toBe(1);
  });

  it("writes once for concurrent duplicates; the others answer the recorded response", async () => {
    const idempotency = await setUp();
    const write = idempotentWriteOf(alice, "key-1", "insert:Todo", {});
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        idempotency.transaction(alice, write, 201, (tx) => tx.entities.insert("Todo", todoInput())),
      ),
    );
    const fresh = answers.filter((answer) => !(answer instanceof IdempotentReplay));
    expect(fresh).toHaveLength(1);
    for (const answer of answers) {
      if (answer instanceof IdempotentReplay)
        expect(JSON.parse(answer.response.body)).toEqual(fresh[0]);
    }
    expect(await todoCount()).toBe(1);
  });

  it("forgets a key after the retention: the same key then runs the write again", async () => {
    const idempotency = await setUp();
    const write = idempotentWriteOf(alice, "key-1", "fn:a", {});
    let runs = 0;
    const run = () => idempotency.transaction(alice, write, 200, async () => ++runs);
    await run();
    clock += IDEMPOTENCY_RETENTION_MS - 1;
    expect(await run()).toBeInstanceOf(IdempotentReplay);
    clock += 1;
    expect(await run()).toBe(2);
  });

  it("holds an action's key while it runs, records its answer, releases it on failure", async () => {
    const idempotency = await setUp();
    const write = idempotentWriteOf(alice, "key-1", "fn:act", {});
    const entered = signal();
    const gate = signal();
    const running = idempotency.action(alice, write, async () => {
      entered.fire();
      await gate.fired;
      return { sent: true };
    });
    // The claim commits before the action runs.
    await entered.fired;
    await expectStoreError(
      idempotency.action(alice, write, async () => "second"),
      "IDEMPOTENCY_KEY_IN_PROGRESS",
    );
    gate.fire();
    expect(await running).toEqual({ sent: true });
    const replay = await idempotency.action(alice, write, async () => "again");
    expect(replay).toBeInstanceOf(IdempotentReplay);
    expect((replay as IdempotentReplay).response).toEqual({ status: 200, body: '{"sent":true}' });

    const failing = idempotentWriteOf(alice, "key-2", "fn:act", {});
    await expect(
      idempotency.action(alice, failing, async () => {
        throw new Error("down");
      }),
    ).rejects.toThrow("down");
    expect(await idempotency.action(alice, failing, async () => "retried")).toBe("retried");
  });

  it("lets a crashed action's lease lapse", async () => {
    const idempotency = await setUp();
    const write = idempotentWriteOf(alice, "key-1", "fn:act", {});
    // A server that dies mid-action never completes nor releases the key.
    const entered = signal();
    void idempotency.action(alice, write, () => {
      entered.fire();
      return new Promise<never>(() => {});
    });
    await entered.fired;
    await expectStoreError(
      idempotency.action(alice, write, async () => "x"),
      "IDEMPOTENCY_KEY_IN_PROGRESS",
    );
    clock += ACTION_LEASE_MS;
    expect(await idempotency.action(alice, write, async () => "after the lease")).toBe(
      "after the lease",
    );
  });
});
