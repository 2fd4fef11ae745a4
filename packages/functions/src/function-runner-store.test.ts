import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adminAuth, StoreError } from "@svc/store";
import { testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import { failure, guestAuth, userAuth, useTestRunner } from "../test/runner-fixture.js";
import { createFunctionRunner } from "./create-function-runner.js";
import { FunctionsError } from "./errors.js";
import { loadFunctions } from "./load-functions.js";

// What the runner does with the store: read-only queries, one transaction per
// mutation (rolled back on any failure), actions calling back into the runner.
// Runs on SQLite, and on Postgres when SVC_TEST_DATABASE_URL is set.
for (const database of testDatabases()) {
  describe(`createFunctionRunner with the store on ${database.name}`, () => {
    const t = useTestRunner(database);

    describe("query", () => {
      it("reads through the store with the caller's auth", async () => {
        await t.runner.run("createTodo", { title: "b" }, adminAuth);
        await t.runner.run("createTodo", { title: "a" }, adminAuth);
        const rows = await t.runner.run("listTodos", {}, adminAuth);
        expect(rows).toMatchObject([
          { title: "a", done: false },
          { title: "b", done: false },
        ]);
        // The store applies Todo's (absent) policy to the caller: only the admin token reads.
        expect(await failure(t.runner, "listTodos", {}, userAuth)).toMatchObject({
          code: "POLICY_DENIED",
          status: 403,
        });
      });

      it("cannot write, even from JavaScript that ignores the types", async () => {
        const dir = await mkdtemp(join(tmpdir(), "svc-functions-"));
        try {
          await writeFile(
            join(dir, "sneakyWrite.mjs"),
            `export default { type: "query", handler: (ctx) => ctx.db.insert("Todo", { title: "x", done: false }) };\n`,
          );
          const sneaky = createFunctionRunner({
            store: t.store,
            functions: await loadFunctions(dir),
          });
          const error = await failure(sneaky, "sneakyWrite", {});
          expect(error).toMatchObject({ code: "QUERY_CANNOT_WRITE", status: 500, expose: true });
          expect(await t.titles()).toEqual([]);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });
    });

    describe("mutation", () => {
      it("writes and returns the stored row", async () => {
        const row = await t.runner.run("createTodo", { title: "milk" }, adminAuth);
        expect(row).toMatchObject({ title: "milk", done: false });
        expect(await t.titles()).toEqual(["milk"]);
      });

      it("rolls back everything when the handler throws, without leaking the message", async () => {
        const error = await failure(t.runner, "createThenFail", { title: "ghost" });
        expect(error).toBeInstanceOf(FunctionsError);
        expect(error).toMatchObject({ code: "FUNCTION_FAILED", status: 500, expose: true });
        expect(error.message).toBe("Function createThenFail failed.");
        expect(error.cause).toBeInstanceOf(Error);
        expect(String((error.cause as Error).message)).toContain("secret");
        expect(await t.titles()).toEqual([]);
      });

      it("rolls back when the handler calls ctx.error", async () => {
        const error = await failure(t.runner, "createThenRefuse", { title: "ghost" });
        expect(error).toMatchObject({
          code: "TODO_REFUSED",
          status: 409,
          message: "This todo is refused.",
        });
        expect(await t.titles()).toEqual([]);
      });

      it("rolls back when the result cannot be sent as JSON", async () => {
        const error = await failure(t.runner, "createThenBigint", { title: "ghost" });
        expect(error).toMatchObject({ code: "INVALID_RESULT", status: 500 });
        expect(await t.titles()).toEqual([]);
      });

      it("passes the store's wire errors through unchanged", async () => {
        const error = await failure(t.runner, "createTodo", { title: "x" }, userAuth);
        expect(error).toBeInstanceOf(StoreError);
        expect(error).toMatchObject({ code: "POLICY_DENIED", status: 403, expose: true });
      });
    });

    describe("action", () => {
      it("runs mutations and queries through the runner with the same auth", async () => {
        const result = await t.runner.run("addAndList", { title: "via action" }, adminAuth);
        expect(result).toMatchObject({
          created: { title: "via action" },
          all: [{ title: "via action" }],
        });
        expect(await failure(t.runner, "addAndList", { title: "x" }, userAuth)).toMatchObject({
          code: "POLICY_DENIED",
        });
        expect(await t.titles()).toEqual(["via action"]);
      });

      it.each([
        [
          "an unknown function",
          { target: "nope", kind: "query", args: {} },
          adminAuth,
          "FUNCTION_NOT_FOUND",
          404,
        ],
        [
          "invalid arguments",
          { target: "echo", kind: "query", args: { text: 1 } },
          adminAuth,
          "INVALID_ARGS",
          400,
        ],
        [
          "a guest calling a user-only query",
          { target: "userOnly", kind: "query", args: {} },
          guestAuth,
          "GUEST_NOT_ALLOWED",
          403,
        ],
        [
          "runQuery on a mutation",
          { target: "createTodo", kind: "query", args: { title: "x" } },
          adminAuth,
          "WRONG_FUNCTION_TYPE",
          500,
        ],
        [
          "runMutation on a query",
          { target: "echo", kind: "mutation", args: { text: "x" } },
          adminAuth,
          "WRONG_FUNCTION_TYPE",
          500,
        ],
        [
          "runQuery on an action",
          { target: "addAndList", kind: "query", args: { title: "x" } },
          adminAuth,
          "WRONG_FUNCTION_TYPE",
          500,
        ],
      ])("applies the runner's rules to %s", async (_case, args, auth, code, status) => {
        expect(await failure(t.runner, "callBadly", args, auth)).toMatchObject({ code, status });
        expect(await t.titles()).toEqual([]);
      });
    });
  });
}
