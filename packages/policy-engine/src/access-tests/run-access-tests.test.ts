import { matchTarget, testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import { brokenCompiler } from "../../test/broken-compiler.js";
import { fixtureManifest } from "../../test/fixture-manifest.js";
import { useAccessDatabase } from "../../test/use-access-database.js";
import { compilePolicies } from "../compile-policies.js";
import { PolicyError } from "../errors.js";
import { formatAccessReport } from "./format-report.js";
import { runAccessTests } from "./run-access-tests.js";

const POLICIES = [
  {
    name: "own todos",
    entity: "Todo",
    allowRead:
      "auth.userId == data.ownerId || exists(Member where listId == data.listId && userId == auth.userId)",
    allowInsert: "auth.userId != null && !auth.isGuest",
    allowUpdate: "auth.userId == existing.ownerId && data.done == false || data.done == true",
    allowDelete: "auth.userId == existing.ownerId",
  },
  {
    name: "tenant lists",
    entity: "List",
    allowRead: "auth.tenantId == data.tenantId && auth.hasRole('editor')",
    allowInsert: "auth.hasRole('editor') && data.tenantId == auth.tenantId",
    allowUpdate: "auth.tenantId == existing.tenantId && data.tenantId == existing.tenantId",
  },
] as const;

const compiled = compilePolicies(fixtureManifest([...POLICIES]));

/** Callers and rows for the fixture manifest; each test adds its expectations. */
const BASE = {
  callers: {
    alice: { userId: "u_alice" },
    bob: { userId: "u_bob" },
    guest: { kind: "guest", userId: "g_1" },
    anonymous: {},
    admin: { kind: "admin" },
    editor: { userId: "u_carol", tenantId: "t1", roles: ["editor"] },
    aliceKey: { kind: "apiKey", userId: "u_alice" },
  },
  rows: {
    List: { shared: { title: "shared", ownerId: "u_alice", tenantId: "t1", archived: false } },
    Todo: {
      alicesTodo: { title: "a", ownerId: "u_alice", listId: { $row: "shared" }, priority: "high" },
      bobsTodo: { title: "b", ownerId: "u_bob" },
    },
    Member: { bobInShared: { userId: "u_bob", listId: { $row: "shared" }, role: "viewer" } },
    Secret: { s: { value: "x" } },
  },
};

const EXPECT = [
  {
    name: "owners and list members read; others do not",
    caller: ["alice", "bob", "aliceKey", "admin"],
    row: "alicesTodo",
    read: "allow",
  },
  { caller: ["guest", "anonymous", "editor"], row: "alicesTodo", read: "deny" },
  { caller: "alice", row: "bobsTodo", read: "deny", update: "deny", delete: "deny" },
  { caller: "bob", row: "alicesTodo", delete: "deny" },
  { caller: "alice", row: "alicesTodo", update: "allow", delete: "allow" },
  { caller: "alice", row: "alicesTodo", data: { done: true }, update: "allow" },
  {
    name: "the owner field cannot change",
    caller: "alice",
    row: "alicesTodo",
    data: { ownerId: "u_bob" },
    update: "deny",
  },
  { caller: ["alice", "bob"], entity: "Todo", data: { title: "new" }, insert: "allow" },
  {
    name: "a false owner is refused",
    caller: "alice",
    entity: "Todo",
    data: { ownerId: "u_bob" },
    insert: "deny",
  },
  { caller: ["guest", "anonymous"], entity: "Todo", insert: "deny" },
  { caller: "editor", row: "shared", read: "allow", update: "allow" },
  { caller: "editor", row: "shared", data: { tenantId: "t2" }, update: "deny" },
  {
    caller: "editor",
    entity: "List",
    data: { tenantId: "t1", ownerId: "u_carol" },
    insert: "allow",
  },
  {
    caller: "editor",
    entity: "List",
    data: { tenantId: "t2", ownerId: "u_carol" },
    insert: "deny",
  },
  { caller: ["alice", "editor"], row: "shared", delete: "deny" },
  {
    name: "no policy: only the admin",
    caller: ["alice", "anonymous"],
    row: "s",
    read: "deny",
    delete: "deny",
  },
  { caller: "admin", row: "s", read: "allow", update: "allow", delete: "allow" },
];

const suite = (expect: readonly unknown[] = EXPECT) => ({ ...BASE, expect });

describe("runAccessTests in memory", () => {
  it("passes a file whose expectations hold", async () => {
    const report = await runAccessTests(compiled, suite());
    expect(report.mismatches).toEqual([]);
    expect(report.checks).toBe(34);
    expect(formatAccessReport(report, "policies.test.json")).toBe(
      "ok policies.test.json: 34 checks pass (evaluator)\n",
    );
  });

  it("reports a wrong expectation with the caller, the row and the rule that decided", async () => {
    const report = await runAccessTests(
      compiled,
      suite([{ name: "bob must not read", caller: "bob", row: "alicesTodo", read: "deny" }]),
    );
    expect(report.mismatches).toHaveLength(1);
    const [mismatch] = report.mismatches;
    expect(mismatch).toMatchObject({
      kind: "expectation",
      index: 0,
      caller: "bob",
      row: "alicesTodo",
      expected: "deny",
      actual: "allow",
      decider: { kind: "rule", rule: { policy: "own todos" } },
    });
    expect(mismatch?.reason).toBe(
      'allowed by policy "own todos" (Todo.allowRead): exists(Member where listId == data.listId && userId == auth.userId) holds',
    );
    const text = formatAccessReport(report, "policies.test.json");
    expect(text).toContain('FAIL policies.test.json expect[0] "bob must not read"');
    expect(text).toContain("bob reads Todo row alicesTodo: expected deny, the policies allow");
    expect(text).toContain('caller:  {"userId":"u_bob"}');
  });

  it("names the store's own refusals: owner field, hidden row, entity gate", async () => {
    const report = await runAccessTests(
      compiled,
      suite([
        { caller: "alice", entity: "Todo", data: { ownerId: "u_bob" }, insert: "allow" },
        { caller: "alice", row: "alicesTodo", data: { ownerId: "u_bob" }, update: "allow" },
        { caller: "editor", row: "alicesTodo", data: { done: true }, update: "allow" },
        { caller: "alice", row: "s", read: "allow" },
      ]),
    );
    expect(report.mismatches.map((mismatch) => mismatch.reason)).toEqual([
      "denied by the store: the owner field Todo.ownerId must be the caller's user id (OWNER_MISMATCH)",
      "denied by the store: the owner field Todo.ownerId cannot change (OWNER_IMMUTABLE)",
      expect.stringMatching(
        /^denied: the caller cannot read the row, so the store answers NOT_FOUND/,
      ),
      "denied: no policy of Secret has an allowRead rule (only the admin token may read)",
    ]);
  });

  it("catches a widened read rule (the seeded bug)", async () => {
    const widened = compilePolicies(
      fixtureManifest([{ ...POLICIES[0], allowRead: "auth.userId != null" }, POLICIES[1]]),
    );
    const report = await runAccessTests(widened, suite());
    expect(report.mismatches.map((m) => `${m.caller} ${m.action} ${m.row}`)).toEqual([
      "guest read alicesTodo",
      "editor read alicesTodo",
      "alice read bobsTodo",
    ]);
  });

  it.each([
    [{ callers: {}, expect: [] }, "policies.test.json: expect: Too small"],
    [
      suite([{ caller: "bobby", row: "alicesTodo", read: "allow" }]),
      'policies.test.json: expect[0].caller: no caller named "bobby"',
    ],
    [suite([{ caller: "bob", row: "nope", read: "allow" }]), 'expect[0].row: no row named "nope"'],
    [
      suite([{ caller: "bob", entity: "Todo", read: "allow" }]),
      "expect[0].read: a read needs the stored row",
    ],
    [suite([{ caller: "bob", row: "alicesTodo", read: "yes" }]), "expect[0].read: Invalid option"],
    [suite([{ caller: "bob", row: "alicesTodo" }]), "expect[0]: expects nothing"],
    [
      { ...suite(), callers: { k: { kind: "apiKey", userId: "u", roles: ["x"] } } },
      "callers.k.roles: an API key resolves to its owner with no roles",
    ],
    [
      { ...suite(), rows: { Todo: { t: { ownerId: 3 } } } },
      "rows.Todo.t.ownerId: field ownerId must be a string",
    ],
    [{ ...suite(), rows: { Nope: { t: {} } } }, "rows.Nope: the manifest has no entity Nope"],
    [
      suite([{ caller: "bob", entity: "Todo", data: { nope: 1 }, insert: "allow" }]),
      "expect[0].data.nope: Todo has no field nope",
    ],
  ])("refuses a bad file with the file and entry named (%#)", async (file, message) => {
    const run = runAccessTests(compiled, file, { source: "policies.test.json" });
    await expect(run).rejects.toBeInstanceOf(PolicyError);
    await expect(run).rejects.toMatchObject({ code: "INVALID_ACCESS_TESTS" });
    await expect(run).rejects.toThrow(message);
  });
});

describe.each(testDatabases())("runAccessTests with the SQL on $name", (kind) => {
  const database = useAccessDatabase(kind);

  it("agrees with the evaluator on every check, and leaves no table behind", async () => {
    const report = await runAccessTests(compiled, suite(), { databases: [database()] });
    expect(report.databases).toEqual([kind.name]);
    expect(report.mismatches).toEqual([]);
    const tables = await matchTarget<Promise<unknown[]>>(database.target(), {
      sqlite: () => database().db.selectFrom("sqlite_master").select("name").execute(),
      postgres: () =>
        database()
          .db.selectFrom("information_schema.tables")
          .select("table_name")
          .where("table_schema", "like", "svc_policy_%")
          .execute(),
    });
    expect(tables).toEqual([]);
  });

  it("catches the widened read in SQL too, and the SQL agrees with the evaluator", async () => {
    const widened = compilePolicies(
      fixtureManifest([{ ...POLICIES[0], allowRead: "auth.userId != null" }, POLICIES[1]]),
    );
    const report = await runAccessTests(widened, suite(), { databases: [database()] });
    expect(report.mismatches.every((mismatch) => mismatch.kind === "expectation")).toBe(true);
    expect(report.mismatches).toHaveLength(3);
  });

  it("reports a compiler disagreement as an sql mismatch, naming the database", async () => {
    const broken = { ...database(), db: database().db.withPlugin(brokenCompiler) };
    const report = await runAccessTests(
      compiled,
      suite([{ caller: "editor", row: "shared", read: "allow" }]),
      { databases: [broken] },
    );
    expect(report.mismatches).toEqual([
      expect.objectContaining({
        kind: "sql",
        database: kind.name,
        caller: "editor",
        row: "shared",
        expected: "allow",
        actual: "deny",
      }),
    ]);
    expect(formatAccessReport(report, "policies.test.json")).toContain(
      `editor reads List row shared: the SQL on ${kind.name} gives deny, the evaluator allow`,
    );
  });
});
