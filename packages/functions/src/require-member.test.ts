import { parseManifest } from "@svc/schema";
import { adminAuth, createAuthContext, createStore, type Store } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import { openTestDatabase, type TestDatabaseTarget, testDatabases } from "@svc/tooling/databases";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createFunctionRunner, type FunctionRunner } from "./create-function-runner.js";
import { type FunctionDefinition, mutation, query } from "./define-function.js";
import type { FunctionsError } from "./errors.js";

const manifest = parseManifest({
  manifest_version: 1,
  name: "members",
  version: "1",
  entities: [
    {
      name: "OrgMember",
      fields: [
        { name: "orgId", type: "string" },
        { name: "userId", type: "string" },
        { name: "role", type: "string" },
      ],
    },
    {
      name: "Doc",
      fields: [
        { name: "orgId", type: "string" },
        { name: "title", type: "string" },
      ],
    },
  ],
  // OrgMember has no policy: nobody but the admin token can read it, and
  // requireMember must work anyway.
  policies: [{ name: "docs", entity: "Doc", allowInsert: "auth.userId != null" }],
});

const functions = new Map<string, FunctionDefinition>([
  [
    "addDoc",
    mutation({
      args: { orgId: z.string(), title: z.string() },
      handler: async (ctx, args) => {
        const membership = await ctx.requireMember(args.orgId, { role: ["admin", "owner"] });
        await ctx.db.insert("Doc", args);
        return membership;
      },
    }),
  ],
  [
    "peek",
    query({
      // Guests may call it, so the guest case reaches requireMember itself.
      auth: "guest",
      args: { orgId: z.string() },
      handler: (ctx, args) => ctx.requireMember(args.orgId),
    }),
  ],
]);

const alice = createAuthContext({ userId: "alice" });
const bob = createAuthContext({ userId: "bob" });

describe.each(testDatabases())("ctx.requireMember on $name", (database) => {
  let target: TestDatabaseTarget;
  let store: Store;
  let close: () => Promise<void>;
  let runner: FunctionRunner;

  beforeEach(async () => {
    target = await database.create();
    const opened = openTestDatabase(target, { openSqlite, openPostgres });
    close = opened.close;
    store = createStore({ ...opened, manifest });
    await store.migrate();
    await store.transaction(adminAuth, async (db) => {
      await db.insert("OrgMember", { orgId: "o1", userId: "alice", role: "admin" });
      await db.insert("OrgMember", { orgId: "o1", userId: "bob", role: "viewer" });
    });
    runner = createFunctionRunner({ store, functions });
  });
  afterEach(async () => {
    await close();
    await database.destroy(target);
  });

  async function failure(name: string, args: unknown, auth = alice): Promise<FunctionsError> {
    return runner.run(name, args, auth).then(
      () => {
        throw new Error("expected the call to fail");
      },
      (error: FunctionsError) => error,
    );
  }

  it("admits a member with a permitted role, reading past OrgMember's policy inside the transaction", async () => {
    expect(await runner.run("addDoc", { orgId: "o1", title: "plan" }, alice)).toEqual({
      orgId: "o1",
      userId: "alice",
      role: "admin",
    });
  });

  it.each([
    ["a member without a permitted role", "addDoc", { orgId: "o1", title: "x" }, bob],
    ["a non-member", "addDoc", { orgId: "o2", title: "x" }, alice],
    ["a guest", "peek", { orgId: "o1" }, createAuthContext({ userId: "alice", isGuest: true })],
  ])("refuses %s with 403 NOT_A_MEMBER and writes nothing", async (_label, name, args, auth) => {
    expect(await failure(name, args, auth)).toMatchObject({ code: "NOT_A_MEMBER", status: 403 });
    expect((await store.reader(adminAuth).query("Doc")).rows).toEqual([]);
  });

  it("admits any member when no role is asked for", async () => {
    expect(await runner.run("peek", { orgId: "o1" }, bob)).toMatchObject({ role: "viewer" });
  });

  it("lets the admin token through", async () => {
    expect(await runner.run("peek", { orgId: "o9" }, adminAuth)).toMatchObject({ orgId: "o9" });
  });
});

describe("ctx.requireMember without an OrgMember entity", () => {
  it("fails with MEMBERSHIP_UNAVAILABLE", async () => {
    const opened = openSqlite(":memory:");
    const bare = createStore({
      ...opened,
      manifest: parseManifest({ manifest_version: 1, name: "bare", version: "1" }),
    });
    await bare.migrate();
    const runner = createFunctionRunner({ store: bare, functions });
    await expect(runner.run("peek", { orgId: "o1" }, alice)).rejects.toMatchObject({
      code: "MEMBERSHIP_UNAVAILABLE",
      status: 501,
    });
    await opened.close();
  });
});
