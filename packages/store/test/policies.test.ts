import {
  compilePolicies,
  type ExistsLookupCondition,
  evaluateAccess,
  PolicyError,
} from "@svc/policy-engine";
import type { ManifestInput } from "@svc/schema";
import { describe, expect, it } from "vitest";
import {
  type AuthContext,
  adminAuth,
  anonymousAuth,
  createAuthContext,
  createStore,
  type Row,
} from "../src/index.js";
import { databases, expectStoreError, manifestOf, openTarget, useStore } from "./fixture.js";
import { MEMBERS_OF_PROJECT_ORG, orgEntities, testManifest } from "./manifests.js";

const policyManifest = testManifest(
  "policies",
  [
    {
      name: "Todo",
      fields: [
        { name: "title", type: "string" },
        { name: "done", type: "bool" },
        { name: "ownerId", type: "string", owner: true },
      ],
    },
    {
      name: "Note",
      fields: [
        { name: "text", type: "string" },
        { name: "authorId", type: "string", owner: true },
        { name: "archived", type: "bool", optional: true },
      ],
    },
    ...orgEntities,
  ],
  {
    policies: [
      {
        name: "own todos",
        entity: "Todo",
        allowRead: "auth.userId == data.ownerId",
        allowInsert: "auth.userId != null && !auth.isGuest",
        allowUpdate: "auth.userId == existing.ownerId && data.title != ''",
        allowDelete: "auth.userId == existing.ownerId",
      },
      {
        name: "public notes, private edits",
        entity: "Note",
        allowRead: "data.archived != true",
        allowInsert: "auth.userId != null",
        allowUpdate: "auth.userId == existing.authorId",
      },
      {
        name: "members see their org's projects",
        entity: "Project",
        allowRead: MEMBERS_OF_PROJECT_ORG,
        allowInsert:
          "exists(OrgMember where orgId == data.orgId && userId == auth.userId && role == 'admin')",
      },
    ],
  },
);

const alice = createAuthContext({ userId: "alice" });
const bob = createAuthContext({ userId: "bob" });
const guest = createAuthContext({ userId: "guest-1", isGuest: true });

describe.each(databases)("policy enforcement on $name", (database) => {
  const fixture = useStore(database, { manifest: policyManifest });

  async function seedTodos(owner: string, count: number, title = "t"): Promise<Row[]> {
    return fixture().store.transaction(adminAuth, async (db) => {
      const rows: Row[] = [];
      for (let i = 0; i < count; i += 1) {
        rows.push(await db.insert("Todo", { title: `${title}${i}`, done: false, ownerId: owner }));
      }
      return rows;
    });
  }

  async function everything(entity: string): Promise<Row[]> {
    return (await fixture().store.reader(adminAuth).query(entity, { limit: 1000 })).rows;
  }

  describe("reads", () => {
    it("lists only the rows the read rule admits, for every caller", async () => {
      const mine = await seedTodos("alice", 3);
      await seedTodos("bob", 2);
      const page = await fixture().store.reader(alice).query("Todo");
      expect(page.rows.map((row) => row.id).sort()).toEqual(mine.map((row) => row.id).sort());
      expect((await fixture().store.reader(anonymousAuth).query("Todo")).rows).toEqual([]);
    });

    it("answers a single read of a hidden row as absent, never as forbidden", async () => {
      const [bobs] = await seedTodos("bob", 1);
      expect(
        await fixture()
          .store.reader(alice)
          .get("Todo", bobs?.id ?? ""),
      ).toBeNull();
      expect(
        await fixture()
          .store.reader(bob)
          .get("Todo", bobs?.id ?? ""),
      ).toMatchObject({
        ownerId: "bob",
      });
    });

    it("paginates over visible rows only", async () => {
      const mine = await seedTodos("alice", 5, "a");
      await seedTodos("bob", 7, "b");
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page += 1) {
        const result = await fixture()
          .store.reader(alice)
          .query("Todo", { limit: 2, ...(cursor !== undefined && { cursor }) });
        expect(result.rows.length).toBeLessThanOrEqual(2);
        seen.push(...result.rows.map((row) => row.id));
        if (result.nextCursor === null) break;
        cursor = result.nextCursor;
      }
      expect(seen.sort()).toEqual(mine.map((row) => row.id).sort());
    });

    it("compares a missing optional field the same way as the evaluator", async () => {
      await fixture().store.transaction(adminAuth, async (db) => {
        await db.insert("Note", { text: "open", authorId: "a" });
        await db.insert("Note", { text: "archived", authorId: "a", archived: true });
        await db.insert("Note", { text: "kept", authorId: "a", archived: false });
      });
      const visible = (await fixture().store.reader(bob).query("Note")).rows.map((r) => r.text);
      const compiled = compilePolicies(manifestOf(policyManifest));
      const expected = (await everything("Note"))
        .filter(
          (data) =>
            evaluateAccess(compiled, { entity: "Note", action: "read", auth: bob, data }).allowed,
        )
        .map((row) => row.text);
      expect(visible.sort()).toEqual(expected.sort());
      expect(visible.sort()).toEqual(["kept", "open"]);
    });

    it("filters through exists(...) as a correlated subquery", async () => {
      await fixture().store.transaction(adminAuth, async (db) => {
        await db.insert("OrgMember", { orgId: "o1", userId: "alice", role: "member" });
        await db.insert("OrgMember", { orgId: "o2", userId: "bob", role: "admin" });
        await db.insert("Project", { orgId: "o1", name: "apollo" });
        await db.insert("Project", { orgId: "o2", name: "gemini" });
        await db.insert("Project", { orgId: "o3", name: "mercury" });
      });
      const names = async (auth: AuthContext): Promise<unknown[]> =>
        (await fixture().store.reader(auth).query("Project")).rows.map((row) => row.name);
      expect(await names(alice)).toEqual(["apollo"]);
      expect(await names(bob)).toEqual(["gemini"]);
      expect(await names(anonymousAuth)).toEqual([]);
    });

    it("gives the same rows as the reference evaluator for every caller", async () => {
      await seedTodos("alice", 2);
      await seedTodos("bob", 2);
      await fixture().store.transaction(adminAuth, async (db) => {
        await db.insert("OrgMember", { orgId: "o1", userId: "alice", role: "admin" });
        await db.insert("Project", { orgId: "o1", name: "p1" });
        await db.insert("Project", { orgId: "o2", name: "p2" });
      });
      const compiled = compilePolicies(manifestOf(policyManifest));
      const members = await everything("OrgMember");
      const lookup = (entity: string, conditions: readonly ExistsLookupCondition[]): boolean =>
        entity === "OrgMember" &&
        members.some((row) => conditions.every((c) => row[c.field] === c.value));
      for (const entity of ["Todo", "Project"]) {
        for (const auth of [alice, bob, guest, anonymousAuth]) {
          const viaSQL = (await fixture().store.reader(auth).query(entity)).rows.map((r) => r.id);
          const viaEvaluator = (await everything(entity))
            .filter(
              (data) =>
                evaluateAccess(compiled, { entity, action: "read", auth, data, lookup }).allowed,
            )
            .map((r) => r.id);
          expect(viaSQL.sort()).toEqual(viaEvaluator.sort());
        }
      }
    });
  });

  describe("writes", () => {
    it("denies an insert the rule refuses with 403 POLICY_DENIED and writes nothing", async () => {
      for (const auth of [anonymousAuth, guest]) {
        await expectStoreError(
          fixture().store.transaction(auth, (db) =>
            db.insert("Todo", { title: "x", done: false, ownerId: auth.userId ?? "x" }),
          ),
          "POLICY_DENIED",
        );
      }
      expect(await everything("Todo")).toEqual([]);
    });

    it("stamps the owner before the insert rule runs", async () => {
      const row = await fixture().store.transaction(alice, (db) =>
        db.insert("Todo", { title: "mine", done: false }),
      );
      expect(row.ownerId).toBe("alice");
    });

    it("checks exists(...) in write rules with a query in the transaction", async () => {
      await fixture().store.transaction(adminAuth, async (db) => {
        await db.insert("OrgMember", { orgId: "o1", userId: "alice", role: "member" });
        await db.insert("OrgMember", { orgId: "o1", userId: "bob", role: "admin" });
      });
      await expectStoreError(
        fixture().store.transaction(alice, (db) =>
          db.insert("Project", { orgId: "o1", name: "x" }),
        ),
        "POLICY_DENIED",
      );
      const created = await fixture().store.transaction(bob, (db) =>
        db.insert("Project", { orgId: "o1", name: "y" }),
      );
      expect(created.name).toBe("y");
      expect((await everything("Project")).map((row) => row.name)).toEqual(["y"]);
    });

    it("answers an update or delete of a hidden row with NOT_FOUND", async () => {
      const [bobs] = await seedTodos("bob", 1);
      const id = bobs?.id ?? "";
      await expectStoreError(
        fixture().store.transaction(alice, (db) => db.update("Todo", id, { done: true })),
        "NOT_FOUND",
      );
      await expectStoreError(
        fixture().store.transaction(alice, (db) => db.delete("Todo", id)),
        "NOT_FOUND",
      );
      expect(await everything("Todo")).toEqual([bobs]);
    });

    it("denies an update of a visible row the update rule refuses, and rolls it back", async () => {
      const note = await fixture().store.transaction(alice, (db) =>
        db.insert("Note", { text: "hello" }),
      );
      await expectStoreError(
        fixture().store.transaction(bob, (db) => db.update("Note", note.id, { text: "hijacked" })),
        "POLICY_DENIED",
      );
      const changed = await fixture().store.transaction(alice, (db) =>
        db.update("Note", note.id, { text: "edited" }),
      );
      expect(changed.text).toBe("edited");
    });

    it("sees the merged row as data on update", async () => {
      const [todo] = await seedTodos("alice", 1);
      await expectStoreError(
        fixture().store.transaction(alice, (db) =>
          db.update("Todo", todo?.id ?? "", { title: "" }),
        ),
        "POLICY_DENIED",
      );
      const done = await fixture().store.transaction(alice, (db) =>
        db.update("Todo", todo?.id ?? "", { done: true }),
      );
      expect(done).toMatchObject({ done: true, title: todo?.title });
    });

    it("denies an action no policy grants with 403, even for a row the caller can read", async () => {
      const note = await fixture().store.transaction(alice, (db) =>
        db.insert("Note", { text: "x" }),
      );
      const error = await expectStoreError(
        fixture().store.transaction(alice, (db) => db.delete("Note", note.id)),
        "POLICY_DENIED",
      );
      expect(error.status).toBe(403);
      expect(await everything("Note")).toHaveLength(1);
    });

    it("lets a user delete their own row", async () => {
      const [todo] = await seedTodos("alice", 1);
      await fixture().store.transaction(alice, (db) => db.delete("Todo", todo?.id ?? ""));
      expect(await everything("Todo")).toEqual([]);
    });
  });

  it("gives framework code a system reader that sees past policies, inside a transaction too", async () => {
    const store = fixture().store;
    await store.transaction(alice, async (db) => {
      await db.insert("Todo", { title: "mine", done: false });
      const inside = await store.systemReader().query("Todo");
      expect(inside.rows.map((row) => row.title)).toEqual(["mine"]);
    });
    await seedTodos("bob", 1);
    expect((await store.systemReader().query("Todo")).rows).toHaveLength(2);
  });

  it("lets the admin token bypass every policy", async () => {
    await seedTodos("bob", 2);
    expect((await fixture().store.reader(adminAuth).query("Todo")).rows).toHaveLength(2);
  });

  it("refuses to create a store whose policy does not check", async () => {
    const bad: ManifestInput = {
      ...policyManifest,
      policies: [{ name: "own todos", entity: "Todo", allowRead: "auth.emailVerified == true" }],
    };
    const db = openTarget(fixture().target);
    try {
      expect(() => createStore({ ...db, manifest: manifestOf(bad) })).toThrow(PolicyError);
      expect(() => createStore({ ...db, manifest: manifestOf(bad) })).toThrow(
        /own todos.*Todo\.allowRead/,
      );
    } finally {
      await db.close();
    }
  });
});
