import { defineApp, entity, field, policy } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { createPolicyAuth, policyTester } from "./testing.js";

const List = entity("List", { title: field.string(), ownerId: field.string().owner() });
const Member = entity("Member", { userId: field.string(), listId: field.id("List") });
const Todo = entity("Todo", {
  title: field.string(),
  ownerId: field.string().owner(),
  listId: field.id("List").optional(),
});
const manifest = defineApp({
  name: "todo",
  version: "0.1.0",
  entities: [List, Member, Todo],
  policies: [
    policy(Todo, {
      name: "own todos",
      allowRead: "auth.userId == data.ownerId",
      allowInsert: "auth.userId != null && data.ownerId == auth.userId",
      allowDelete: "auth.userId == existing.ownerId || auth.hasRole('moderator')",
    }),
    policy(Todo, {
      name: "shared",
      allowRead: "exists(Member where listId == data.listId && userId == auth.userId)",
    }),
  ],
});

describe("policyTester", () => {
  const p = policyTester(manifest, { tables: { Member: [{ userId: "u2", listId: "l1" }] } });

  it("answers can(...) in one line per case", () => {
    expect(p.can("read", "Todo", { auth: { userId: "u1" }, data: { ownerId: "u1" } })).toBe(true);
    expect(p.can("read", "Todo", { data: { ownerId: "u1" } })).toBe(false);
    expect(p.can("insert", "Todo", { auth: { userId: "u1" }, data: { ownerId: "u1" } })).toBe(true);
    expect(
      p.can("delete", "Todo", { auth: { roles: ["moderator"] }, existing: { ownerId: "u1" } }),
    ).toBe(true);
    expect(
      p.can("update", "Todo", { auth: { userId: "u1" }, data: {}, existing: { ownerId: "u1" } }),
    ).toBe(false);
  });

  it("answers exists(...) from the tester's tables, or the case's", () => {
    expect(
      p.check("read", "Todo", { auth: { userId: "u2" }, data: { ownerId: "u1", listId: "l1" } }),
    ).toEqual({
      allowed: true,
      policy: "shared",
    });
    const elsewhere = { Member: [{ userId: "u2", listId: "l2" }] };
    expect(
      p.can("read", "Todo", {
        auth: { userId: "u2" },
        data: { ownerId: "u1", listId: "l1" },
        tables: elsewhere,
      }),
    ).toBe(false);
  });

  it("filters rows to those a caller may read", () => {
    const rows = [
      { id: "1", ownerId: "u1" },
      { id: "2", ownerId: "u2" },
    ];
    expect(p.visible("Todo", rows, { auth: { userId: "u1" } }).map((row) => row.id)).toEqual(["1"]);
  });

  it("explains a case", () => {
    const e = p.explain("read", "Todo", {
      auth: { userId: "u1" },
      data: { ownerId: "u1" },
      dialect: "postgres",
    });
    expect(e.verdict?.policy).toBe("own todos");
    expect(e.rules[0]?.sql).toEqual({
      sql: 'select * from "Todo" where "ownerId" = $1',
      parameters: ["u1"],
    });
  });

  it("fails at creation with every policy problem", () => {
    const broken = {
      ...manifest,
      policies: [{ name: "bad", entity: "Todo", allowRead: "auth.emailVerified" }],
    };
    expect(() => policyTester(broken)).toThrowError(
      /policy "bad" \(Todo.allowRead\): unknown auth.emailVerified/,
    );
  });

  it("createPolicyAuth fills the anonymous caller's defaults", () => {
    expect(createPolicyAuth({ userId: "u1" })).toEqual({
      userId: "u1",
      tenantId: null,
      roles: [],
      entitlements: [],
      isAdmin: false,
      isGuest: false,
    });
  });
});
