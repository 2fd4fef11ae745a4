import { describe, expectTypeOf, it } from "vitest";
import { createClient, type EntityRow, type Page, type SvcClient } from "../src/index.js";

type Api = {
  functions: {
    createTodo: { args: { title: string; priority?: "low" | "high" }; result: { id: string } };
    summary: { args: { listId?: string }; result: { open: number } };
  };
  entities: { Todo: { title: string; done: boolean } };
};

// The expressions below run; this fetch answers them without a network.
const offline = { url: "http://svc.test", fetch: async () => new Response("{}") };

// Never called: the checks are made by the type checker (`pnpm typecheck` covers test/).
function typeChecks(client: SvcClient<Api>): void {
  // @ts-expect-error a wrong argument type fails to compile
  void client.fn("createTodo", { title: 42 });
  // @ts-expect-error a missing required argument fails to compile
  void client.fn("createTodo", {});
  // @ts-expect-error required arguments cannot be left out
  void client.fn("createTodo");
  // @ts-expect-error an unknown function fails to compile
  void client.fn("deleteEverything", {});
  // @ts-expect-error an unknown argument fails to compile
  void client.fn("createTodo", { title: "x", colour: "red" });
  // @ts-expect-error an unknown entity fails to compile
  void client.entities("Nope");
  // @ts-expect-error a field of the wrong type fails to compile
  void client.entities("Todo").insert({ title: "x", done: "no" });
  // @ts-expect-error ordering by an unknown field fails to compile
  void client.entities("Todo").list({ order: "-colour" });
  // @ts-expect-error filtering on an unknown field fails to compile
  void client.entities("Todo").list({ where: { colour: "red" } });
  // @ts-expect-error subscribing to an unknown entity fails to compile
  void client.subscribe("Nope", {}, () => undefined);
  // @ts-expect-error a live filter on an unknown field fails to compile
  void client.subscribe("Todo", { where: { colour: "red" } }, () => undefined);
  // @ts-expect-error a live order on an unknown field fails to compile
  void client.subscribe("Todo", { orderBy: { field: "colour" } }, () => undefined);
  // @ts-expect-error a live query's arguments are checked like fn's
  void client.live("summary", { listId: 1 }, () => undefined);
}

describe("types", () => {
  it("infers function results and optional arguments from the Api", () => {
    const client = createClient<Api>(offline);
    expectTypeOf(client.fn("createTodo", { title: "x" })).resolves.toEqualTypeOf<{ id: string }>();
    expectTypeOf(client.fn("summary")).resolves.toEqualTypeOf<{ open: number }>();
    expectTypeOf(client.fn<"createTodo">)
      .parameter(1)
      .toEqualTypeOf<{ title: string; priority?: "low" | "high" }>();
    expectTypeOf(typeChecks).toBeFunction();
  });

  it("types entity rows with their id", () => {
    const client = createClient<Api>(offline);
    const todos = client.entities("Todo");
    expectTypeOf(todos.get("x")).resolves.toEqualTypeOf<
      EntityRow<{ title: string; done: boolean }>
    >();
    expectTypeOf(todos.list()).resolves.toEqualTypeOf<
      Page<EntityRow<{ title: string; done: boolean }>>
    >();
    expectTypeOf<EntityRow<{ title: string }>["id"]>().toEqualTypeOf<string>();
  });

  it("types live rows and live query values", () => {
    const client = createClient<Api>({ ...offline, live: { transport: "sse" } });
    const todos = client.subscribe("Todo", { orderBy: "-title" }, (rows) => {
      expectTypeOf(rows).toEqualTypeOf<readonly EntityRow<{ title: string; done: boolean }>[]>();
    });
    expectTypeOf(todos.rows).toEqualTypeOf<
      readonly EntityRow<{ title: string; done: boolean }>[]
    >();
    todos.unsubscribe();
    const summary = client.live("summary", {}, (value) => {
      expectTypeOf(value).toEqualTypeOf<{ open: number }>();
    });
    expectTypeOf(summary.value).toEqualTypeOf<{ open: number } | undefined>();
    summary.unsubscribe();
  });

  it("defaults to loose types", () => {
    const client = createClient(offline);
    expectTypeOf(client.fn("anything", { any: 1 })).resolves.toBeUnknown();
    expectTypeOf(client.entities("Anything").get("x")).resolves.toHaveProperty("id");
  });
});
