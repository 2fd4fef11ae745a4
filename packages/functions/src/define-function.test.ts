import type { AuthContext, EntityReader, EntityWriter, Row } from "@svc/store";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { ActionContext, MutationContext, QueryContext } from "./context.js";
import {
  action,
  type FunctionDefinition,
  type MutationDefinition,
  mutation,
  query,
  type UntypedArgs,
} from "./define-function.js";

describe("query, mutation, action", () => {
  it.each([
    ["query", query],
    ["mutation", mutation],
    ["action", action],
  ] as const)("%s returns a frozen plain object tagged with its type", (type, define) => {
    const handler = (): number => 1;
    const definition = define({ auth: "guest", handler });
    expect(definition).toEqual({ type, auth: "guest", handler });
    expect(Object.getPrototypeOf(definition)).toBe(Object.prototype);
    expect(Object.isFrozen(definition)).toBe(true);
  });

  it("keeps the args declaration as given", () => {
    const args = { title: z.string() };
    expect(mutation({ args, handler: () => null }).args).toBe(args);
  });
});

describe("type inference", () => {
  it("infers handler args from a record of zod schemas, optional keys included", () => {
    query({
      args: { id: z.string(), limit: z.number().optional(), tags: z.array(z.string()).default([]) },
      handler: (_ctx, args) => {
        expectTypeOf(args).toEqualTypeOf<{
          id: string;
          limit?: number | undefined;
          tags: string[];
        }>();
        return null;
      },
    });
  });

  it("infers handler args from a zod object", () => {
    mutation({
      args: z.object({ title: z.string(), done: z.boolean() }),
      handler: (_ctx, args) => {
        expectTypeOf(args).toEqualTypeOf<{ title: string; done: boolean }>();
        return null;
      },
    });
  });

  it("types a function without args as taking any object", () => {
    action({
      handler: (_ctx, args) => {
        expectTypeOf(args).toEqualTypeOf<UntypedArgs>();
        return null;
      },
    });
  });

  it("gives a query a read-only db", () => {
    query({
      handler: async (ctx) => {
        expectTypeOf(ctx).toEqualTypeOf<QueryContext>();
        expectTypeOf(ctx.db).toEqualTypeOf<EntityReader>();
        expectTypeOf(ctx.db).not.toHaveProperty("insert");
        expectTypeOf(ctx.db).not.toHaveProperty("update");
        expectTypeOf(ctx.db).not.toHaveProperty("delete");
        // @ts-expect-error a query cannot write
        await ctx.db.insert("Todo", {});
        return null;
      },
    });
  });

  it("gives a mutation a writer", () => {
    mutation({
      handler: async (ctx) => {
        expectTypeOf(ctx).toEqualTypeOf<MutationContext>();
        expectTypeOf(ctx.db).toEqualTypeOf<EntityWriter>();
        expectTypeOf(ctx.db.insert).returns.resolves.toEqualTypeOf<Row>();
        return null;
      },
    });
  });

  it("gives an action runQuery and runMutation but no db", () => {
    action({
      handler: async (ctx) => {
        expectTypeOf(ctx).toEqualTypeOf<ActionContext>();
        expectTypeOf(ctx).not.toHaveProperty("db");
        expectTypeOf(ctx.runQuery).returns.resolves.toBeUnknown();
        expectTypeOf(ctx.runMutation).parameter(0).toBeString();
        return null;
      },
    });
  });

  it("gives every ctx auth and an error that never returns", () => {
    query({
      handler: (ctx) => {
        expectTypeOf(ctx.auth).toEqualTypeOf<AuthContext>();
        expectTypeOf(ctx.auth.entitlements).toEqualTypeOf<readonly string[]>();
        expectTypeOf(ctx.error).returns.toBeNever();
        expectTypeOf(ctx.error).parameters.toEqualTypeOf<[string, string, (number | undefined)?]>();
        return null;
      },
    });
  });

  it("infers the result type, awaiting promises", () => {
    const get = query({
      args: { id: z.string() },
      handler: async (_ctx, args) => ({ id: args.id }),
    });
    const registered: FunctionDefinition = get;
    expectTypeOf(registered.type).toEqualTypeOf<"query" | "mutation" | "action">();
    expectTypeOf(get.type).toEqualTypeOf<"query">();
    const create = mutation({ handler: () => 42 });
    expectTypeOf(create).toEqualTypeOf<MutationDefinition<undefined, number>>();
    expectTypeOf(get.handler).returns.resolves.toEqualTypeOf<{ id: string }>();
  });

  it("rejects mistakes at compile time", () => {
    // @ts-expect-error args must be zod schemas
    query({ args: { id: "string" }, handler: () => null });
    // @ts-expect-error auth is "user" or "guest"
    query({ auth: "admin", handler: () => null });
    query({
      args: { id: z.string() },
      // @ts-expect-error args.id is a string
      handler: (_ctx, args) => args.id.toFixed(),
    });
    expect(true).toBe(true);
  });
});
