import { parseManifest, SchemaError } from "@svc/schema";
import {
  type AuthContext,
  adminAuth,
  createAuthContext,
  createStore,
  type Store,
  StoreError,
} from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import {
  openTestDatabase,
  type TestDatabase,
  type TestDatabaseTarget,
} from "@svc/tooling/databases";
import { afterAll, afterEach, beforeAll } from "vitest";
import { z } from "zod";
import { createFunctionRunner, type FunctionRunner } from "../src/create-function-runner.js";
import { action, type FunctionDefinition, mutation, query } from "../src/define-function.js";

// The shared fixture of the runner suites: one entity, a set of functions that
// exercise every rule, and a store per database that is emptied after each test.

export const manifest = parseManifest({
  manifest_version: 1,
  name: "runner-test",
  version: "0.1.0",
  entities: [
    {
      name: "Todo",
      fields: [
        { name: "title", type: "string" },
        { name: "done", type: "bool" },
      ],
    },
  ],
});

export const userAuth = createAuthContext({ userId: "u1" });
export const guestAuth = createAuthContext({ userId: "g1", isGuest: true });

export const testFunctions = new Map<string, FunctionDefinition>([
  ["whoami", query({ auth: "guest", handler: (ctx) => ({ userId: ctx.auth.userId }) })],
  ["userOnly", query({ handler: () => "ok" })],
  [
    "echo",
    query({ args: { text: z.string(), n: z.number().optional() }, handler: (_ctx, args) => args }),
  ],
  ["noArgs", query({ handler: (_ctx, args) => ({ keys: Object.keys(args) }) })],
  [
    "listTodos",
    query({
      handler: async (ctx) => (await ctx.db.query("Todo", { orderBy: { field: "title" } })).rows,
    }),
  ],
  [
    "createTodo",
    mutation({
      args: { title: z.string().min(1) },
      handler: async (ctx, args) => ctx.db.insert("Todo", { title: args.title, done: false }),
    }),
  ],
  [
    "createThenFail",
    mutation({
      args: { title: z.string() },
      handler: async (ctx, args) => {
        await ctx.db.insert("Todo", { title: args.title, done: false });
        throw new Error("secret connection string postgres://user:pw@host");
      },
    }),
  ],
  [
    "createThenRefuse",
    mutation({
      args: { title: z.string() },
      handler: async (ctx, args) => {
        await ctx.db.insert("Todo", { title: args.title, done: false });
        return ctx.error("TODO_REFUSED", "This todo is refused.", 409);
      },
    }),
  ],
  [
    "createThenBigint",
    mutation({
      args: { title: z.string() },
      handler: async (ctx, args) => {
        await ctx.db.insert("Todo", { title: args.title, done: false });
        return { count: 1n };
      },
    }),
  ],
  [
    "addAndList",
    action({
      args: { title: z.string() },
      handler: async (ctx, args) => {
        const created = await ctx.runMutation("createTodo", { title: args.title });
        const all = await ctx.runQuery("listTodos");
        return { created, all };
      },
    }),
  ],
  [
    "callBadly",
    action({
      auth: "guest",
      args: { target: z.string(), kind: z.enum(["query", "mutation"]), args: z.unknown() },
      handler: (ctx, args) =>
        args.kind === "query"
          ? ctx.runQuery(args.target, args.args as Record<string, unknown>)
          : ctx.runMutation(args.target, args.args as Record<string, unknown>),
    }),
  ],
  [
    "raise",
    query({
      args: { code: z.string(), status: z.number().optional() },
      handler: (ctx, args) => ctx.error(args.code, "Raised on purpose.", args.status),
    }),
  ],
  [
    "throwExposed",
    query({
      args: { which: z.enum(["store", "schema"]) },
      handler: (_ctx, args) => {
        throw args.which === "store" ? new StoreError("NOT_FOUND") : new SchemaError("INVALID_ID");
      },
    }),
  ],
  ["returnNothing", query({ handler: () => undefined })],
  ["returnDate", query({ handler: () => ({ at: new Date("2024-05-01T10:00:00.000Z") }) })],
]);

/** Calls `runner.run` and returns the error it rejects with. */
export async function failure(
  runner: FunctionRunner,
  name: string,
  args: unknown,
  auth: AuthContext = adminAuth,
): Promise<Error & { code?: unknown; status?: unknown; expose?: unknown }> {
  const outcome: unknown = await runner.run(name, args, auth).then(
    (value) => ({ resolved: value }),
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error))
    throw new Error(`${name} did not fail: ${JSON.stringify(outcome)}`);
  return outcome;
}

/** A runner on a fresh store; valid inside the tests of the `describe` that called `useTestRunner`. */
export interface TestRunner {
  readonly runner: FunctionRunner;
  readonly store: Store;
  /** The titles of every stored Todo, sorted (read as admin). */
  titles(): Promise<string[]>;
}

/**
 * Opens `database`, migrates the test manifest and builds a runner over
 * `testFunctions` before the suite; empties the store after each test and
 * drops the database after the suite.
 */
export function useTestRunner(database: TestDatabase): TestRunner {
  let target: TestDatabaseTarget | undefined;
  let close: (() => Promise<void>) | undefined;
  let state: { runner: FunctionRunner; store: Store } | undefined;
  const current = (): { runner: FunctionRunner; store: Store } => {
    if (!state) throw new Error("useTestRunner: the suite has not started");
    return state;
  };

  beforeAll(async () => {
    target = await database.create();
    const opened = openTestDatabase(target, { openSqlite, openPostgres });
    close = opened.close;
    const store = createStore({ db: opened.db, dialect: opened.dialect, manifest });
    await store.migrate();
    state = { store, runner: createFunctionRunner({ store, functions: testFunctions }) };
  });

  afterEach(async () => {
    await state?.store.truncateAll();
  });

  afterAll(async () => {
    await close?.();
    if (target) await database.destroy(target);
  });

  return {
    get runner() {
      return current().runner;
    },
    get store() {
      return current().store;
    },
    async titles() {
      const page = await current()
        .store.reader(adminAuth)
        .query("Todo", { orderBy: { field: "title" } });
      return page.rows.map((row) => String(row.title));
    },
  };
}
