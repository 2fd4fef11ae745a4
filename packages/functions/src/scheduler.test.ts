import { testDatabases } from "@svc/tooling/databases";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { failure, userAuth, useTestRunner } from "../test/runner-fixture.js";
import { createFunctionRunner } from "./create-function-runner.js";
import { action, type FunctionDefinition, mutation, query } from "./define-function.js";
import type { JobScheduler, ScheduledCall } from "./scheduler.js";

// ctx.scheduler through the runner, on a real store: the scheduler seam gets
// the mutation's own transaction (a rolled-back mutation leaves no job), the
// caller's identity and validated arguments; bad targets fail at schedule time.

const NOW = Date.UTC(2030, 0, 1);

const functions = new Map<string, FunctionDefinition>([
  [
    "later",
    mutation({
      args: { n: z.number().int(), fail: z.boolean().optional() },
      handler: async (ctx, args) => {
        const id = await ctx.scheduler.runAfter(1000, "target", { n: args.n });
        if (args.fail) ctx.error("ROLLED_BACK", "Undo.");
        return { id };
      },
    }),
  ],
  [
    "atTime",
    action({
      handler: async (ctx) => ({
        id: await ctx.scheduler.runAt(new Date(NOW + 5000), "target", { n: 2 }),
      }),
    }),
  ],
  [
    "cancelIt",
    mutation({
      args: { id: z.string() },
      handler: async (ctx, args) => ({ cancelled: await ctx.scheduler.cancel(args.id) }),
    }),
  ],
  [
    "badTarget",
    mutation({
      args: { target: z.string(), delay: z.number().optional(), args: z.unknown().optional() },
      handler: (ctx, args) =>
        ctx.scheduler.runAfter(args.delay ?? 0, args.target, args.args as Record<string, unknown>),
    }),
  ],
  ["target", mutation({ args: { n: z.number().int() }, handler: () => null })],
  ["aQuery", query({ handler: () => null })],
]);

/** A scheduler that stores each call in its own table through the transaction it is given. */
function tableScheduler(
  calls: (ScheduledCall & { inTransaction: boolean })[],
  commits: string[] = [],
): JobScheduler {
  return {
    committed() {
      commits.push(`after ${calls.length}`);
    },
    async schedule(trx, call) {
      const id = `job-${calls.length + 1}`;
      if (trx !== undefined) {
        await trx.insertInto("scheduled").values({ id }).execute();
      }
      calls.push({ ...call, inTransaction: trx !== undefined });
      return id;
    },
    async cancel(trx, id) {
      if (trx === undefined) return false;
      const result = await trx.deleteFrom("scheduled").where("id", "=", id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

describe.each(testDatabases())("ctx.scheduler on $name", (database) => {
  const t = useTestRunner(database);

  beforeAll(async () => {
    await t.store.migrate({
      packages: [
        {
          owner: "scheduler-test",
          migrations: [
            {
              id: "001",
              up: (db) => db.schema.createTable("scheduled").addColumn("id", "text").execute(),
            },
          ],
        },
      ],
    });
  });

  it("schedules in the mutation's transaction, as the caller, with validated arguments", async () => {
    const calls: (ScheduledCall & { inTransaction: boolean })[] = [];
    const commits: string[] = [];
    const runner = createFunctionRunner({
      store: t.store,
      functions,
      scheduler: tableScheduler(calls, commits),
      now: () => NOW,
    });
    expect(await runner.run("later", { n: 1 }, userAuth)).toEqual({ id: "job-1" });
    expect(calls).toEqual([
      { name: "target", args: { n: 1 }, runAt: NOW + 1000, auth: userAuth, inTransaction: true },
    ]);
    expect(await failure(runner, "later", { n: 2, fail: true }, userAuth)).toMatchObject({
      code: "ROLLED_BACK",
    });
    expect(await runner.run("cancelIt", { id: "job-1" }, userAuth)).toEqual({ cancelled: true });
    // job-2 was rolled back with its mutation, so there is nothing to cancel.
    expect(await runner.run("cancelIt", { id: "job-2" }, userAuth)).toEqual({ cancelled: false });
    expect(await runner.run("atTime", {}, userAuth)).toEqual({ id: "job-3" });
    expect(calls[2]).toMatchObject({ runAt: NOW + 5000, inTransaction: false });
    // Told once per committed mutation that scheduled, and per action call;
    // never for the rolled-back one or a mutation that only cancelled.
    expect(commits).toEqual(["after 1", "after 3"]);
  });

  it.each([
    [{ target: "aQuery" }, "WRONG_FUNCTION_TYPE", 500],
    [{ target: "nothing" }, "FUNCTION_NOT_FOUND", 404],
    [{ target: "target", args: { n: "x" } }, "INVALID_ARGS", 400],
    [{ target: "target", args: { n: 1 }, delay: -1 }, "INVALID_SCHEDULE", 500],
    [{ target: "target", args: { n: 1 }, delay: 20 * 366 * 86_400_000 }, "INVALID_SCHEDULE", 500],
  ])("refuses %j at schedule time with %s", async (args, code, status) => {
    const calls: (ScheduledCall & { inTransaction: boolean })[] = [];
    const runner = createFunctionRunner({
      store: t.store,
      functions,
      scheduler: tableScheduler(calls),
    });
    expect(await failure(runner, "badTarget", args, userAuth)).toMatchObject({ code, status });
    expect(calls).toEqual([]);
  });

  it("answers SCHEDULER_UNAVAILABLE without a scheduler", async () => {
    const runner = createFunctionRunner({ store: t.store, functions });
    expect(await failure(runner, "later", { n: 1 }, userAuth)).toMatchObject({
      code: "SCHEDULER_UNAVAILABLE",
      status: 501,
    });
  });
});
