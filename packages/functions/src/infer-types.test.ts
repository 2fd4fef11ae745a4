import { defineApp, entity, field } from "@svc/schema";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { action, type InferArgs, mutation, query } from "./define-function.js";
import { hook } from "./define-hook.js";
import type {
  ApiOf,
  InferCallArgs,
  InferFunctions,
  InferResult,
  JSONResult,
  JSONValue,
} from "./infer-types.js";
import { toJSONResult } from "./to-json-result.js";

// Type-level behaviour: `tsc --noEmit` (pnpm typecheck) checks this file, and
// every `@ts-expect-error` below fails the typecheck if the line compiles.
// The runtime assertions tie the types to what `toJSONResult` really does.

const createTodo = mutation({
  args: { title: z.string(), priority: z.enum(["low", "high"]).default("low") },
  handler: async (_ctx, args) => ({ id: "t1", title: args.title, at: new Date(0) }),
});
const listTodos = query({
  args: z.object({ limit: z.number().int().optional() }),
  handler: () => [{ id: "t1", due: undefined as Date | undefined }],
});
const ping = action({ handler: async () => undefined });
const onDelete = hook({ on: { delete: { entity: "Todo" } }, handler: async () => undefined });

describe("InferResult", () => {
  it("awaits the handler's result and JSON-serialises Dates", () => {
    expectTypeOf<InferResult<typeof createTodo>>().toEqualTypeOf<{
      id: string;
      title: string;
      at: string;
    }>();
    const wire = toJSONResult({ id: "t1", title: "x", at: new Date(0) }, "createTodo");
    expect(wire).toEqual({ id: "t1", title: "x", at: "1970-01-01T00:00:00.000Z" });
  });

  it("answers undefined as null", () => {
    expectTypeOf<InferResult<typeof ping>>().toEqualTypeOf<null>();
    expect(toJSONResult(undefined, "ping")).toBeNull();
    expectTypeOf<JSONResult<Promise<number | undefined>>>().toEqualTypeOf<number | null>();
    expectTypeOf<JSONResult<void>>().toEqualTypeOf<null>();
  });

  it("makes possibly-undefined properties optional and drops functions", () => {
    expectTypeOf<InferResult<typeof listTodos>>().toEqualTypeOf<{ id: string; due?: string }[]>();
    expectTypeOf<JSONValue<{ a: number; f: () => void; s: symbol }>>().toEqualTypeOf<{
      a: number;
    }>();
    expect(toJSONResult({ a: 1, f: () => undefined, u: undefined }, "f")).toStrictEqual({ a: 1 });
  });

  it("turns array holes JSON cannot carry into null and keeps tuples", () => {
    expectTypeOf<JSONValue<(string | undefined)[]>>().toEqualTypeOf<(string | null)[]>();
    expectTypeOf<JSONValue<readonly [Date, number]>>().toEqualTypeOf<[string, number]>();
    expect(toJSONResult(["a", undefined], "f")).toEqual(["a", null]);
  });

  it("keeps unknown and rejects bigint", () => {
    expectTypeOf<JSONValue<unknown>>().toBeUnknown();
    expectTypeOf<JSONValue<bigint>>().toBeNever();
    expectTypeOf<InferResult<typeof opaque>>().toBeUnknown();
  });
});

const opaque = query({ handler: (): unknown => null });

describe("InferCallArgs and InferArgs", () => {
  it("gives callers the zod input and handlers the output", () => {
    expectTypeOf<InferCallArgs<typeof createTodo>>().toEqualTypeOf<{
      title: string;
      priority?: "low" | "high" | undefined;
    }>();
    expectTypeOf<InferArgs<typeof createTodo>>().toEqualTypeOf<{
      title: string;
      priority: "low" | "high";
    }>();
    expectTypeOf<InferCallArgs<typeof listTodos>>().toEqualTypeOf<{
      limit?: number | undefined;
    }>();
  });

  it("takes any JSON object when a function declares no arguments", () => {
    expectTypeOf<InferCallArgs<typeof ping>>().toEqualTypeOf<Readonly<Record<string, unknown>>>();
    expectTypeOf<InferArgs<typeof ping>>().toEqualTypeOf<Readonly<Record<string, unknown>>>();
  });

  it("still types argument declarations", () => {
    expectTypeOf<InferArgs<{ n: z.ZodNumber }>>().toEqualTypeOf<{ n: number }>();
  });
});

describe("InferFunctions and ApiOf", () => {
  const Todo = entity("Todo", { title: field.string(), listId: field.id("Todo").optional() });
  const app = defineApp({ name: "todo", version: "1", entities: [Todo] });
  type Api = ApiOf<typeof app, { createTodo: typeof createTodo; onDelete: typeof onDelete }>;

  it("maps callable functions and leaves hooks out", () => {
    expectTypeOf<
      keyof InferFunctions<{ ping: typeof ping; onDelete: typeof onDelete }>
    >().toEqualTypeOf<"ping">();
    expectTypeOf<Api["functions"]["createTodo"]["result"]>().toEqualTypeOf<{
      id: string;
      title: string;
      at: string;
    }>();
  });

  it("takes the entities' fields without id from the app", () => {
    expectTypeOf<Api["entities"]>().toEqualTypeOf<{
      Todo: { title: string; listId: string | null };
    }>();
  });

  it("rejects what is not a function", () => {
    const uses = [
      // @ts-expect-error a hook has no result a caller could receive
      (): InferResult<typeof onDelete> => null,
      // @ts-expect-error hooks are not in the Api
      (api: Api) => api.functions.onDelete,
    ];
    expectTypeOf(uses).toBeArray();
  });
});
