import { adminAuth } from "@svc/store";
import { describe, expect, it } from "vitest";
import { memoryStores } from "../test/memory-stores.js";
import { manifest } from "../test/runner-fixture.js";
import { createFunctionRunner } from "./create-function-runner.js";
import { type BillingEventInput, hook } from "./define-hook.js";
import { FunctionsError } from "./errors.js";
import type { FunctionFileDefinition } from "./function-registry.js";

// Billing-event hooks: function files that react to verified payment events,
// each run in its own admin transaction, filtered by event type, and never
// callable over HTTP.

const storeWith = memoryStores(manifest);

function eventOf(type: string): BillingEventInput {
  return { event: { id: `evt_${type}`, type, data: { object: {} } }, replay: false };
}

describe("billing hooks", () => {
  it("run for their event types only, with admin rights, and commit their writes", async () => {
    const store = await storeWith();
    const seen: string[] = [];
    const onSubscription = hook({
      on: { billing: { events: ["customer.subscription.updated"] } },
      handler: async (ctx, { event, replay }) => {
        seen.push(`${event.type}:${replay}`);
        expect(ctx.auth.isAdmin).toBe(true);
        await ctx.db.insert("Todo", { title: `from ${event.id}`, done: false });
      },
    });
    const onAll = hook({
      on: { billing: {} },
      handler: (_ctx, { event }) => {
        seen.push(`all:${event.type}`);
      },
    });
    const runner = createFunctionRunner({
      store,
      functions: new Map<string, FunctionFileDefinition>([
        ["onSubscription", onSubscription],
        ["onAll", onAll],
      ]),
    });
    expect(runner.hasBillingHooks()).toBe(true);
    expect(runner.has("onSubscription")).toBe(false);
    await runner.dispatchBillingEvent(eventOf("customer.subscription.updated"));
    await runner.dispatchBillingEvent(eventOf("invoice.paid"));
    expect(seen.sort()).toEqual(
      [
        "all:customer.subscription.updated",
        "all:invoice.paid",
        "customer.subscription.updated:false",
      ].sort(),
    );
    const todos = await store.reader(adminAuth).query("Todo", {});
    expect(todos.rows.map((row) => row.title)).toEqual(["from evt_customer.subscription.updated"]);
  });

  it("a failing hook rolls its writes back and rejects with a client-safe error", async () => {
    const store = await storeWith();
    const failing = hook({
      on: { billing: {} },
      handler: async (ctx) => {
        await ctx.db.insert("Todo", { title: "half", done: false });
        throw new Error("the mailer is down");
      },
    });
    const runner = createFunctionRunner({
      store,
      functions: new Map<string, FunctionFileDefinition>([["failing", failing]]),
    });
    await expect(runner.dispatchBillingEvent(eventOf("invoice.paid"))).rejects.toMatchObject({
      code: "FUNCTION_FAILED",
    });
    expect((await store.reader(adminAuth).query("Todo", {})).rows).toEqual([]);
  });

  it("without billing hooks, dispatching does nothing", async () => {
    const runner = createFunctionRunner({ store: await storeWith(), functions: new Map() });
    expect(runner.hasBillingHooks()).toBe(false);
    await expect(runner.dispatchBillingEvent(eventOf("invoice.paid"))).resolves.toBeUndefined();
  });

  it("refuses a billing hook whose events are not a list of types", async () => {
    const store = await storeWith();
    for (const events of [[], "invoice.paid", [""], [42]]) {
      const bad = { type: "hook", on: { billing: { events } }, handler: async () => {} };
      expect(() =>
        createFunctionRunner({
          store,
          functions: new Map<string, FunctionFileDefinition>([["bad", bad as never]]),
        }),
      ).toThrow(FunctionsError);
    }
  });
});
