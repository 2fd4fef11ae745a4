import { SchemaError } from "@svc/schema";
import { adminAuth, anonymousAuth, createAuthContext, type Store, StoreError } from "@svc/store";
import { sqliteTestDatabase } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import {
  failure,
  guestAuth,
  testFunctions,
  userAuth,
  useTestRunner,
} from "../test/runner-fixture.js";
import { createFunctionRunner } from "./create-function-runner.js";
import type { FunctionDefinition } from "./define-function.js";
import { FunctionsError } from "./errors.js";

// Lookup, auth, arguments, errors and results. None of them depends on the
// dialect, so SQLite is enough; function-runner-store.test.ts covers the
// store-facing behaviour on every database.
for (const database of [sqliteTestDatabase()]) {
  describe("createFunctionRunner", () => {
    const t = useTestRunner(database);

    it("lists its functions", () => {
      expect(t.runner.has("echo")).toBe(true);
      expect(t.runner.has("nope")).toBe(false);
      expect(t.runner.names()).toEqual([...testFunctions.keys()].sort());
    });

    it("answers FUNCTION_NOT_FOUND for an unknown name", async () => {
      const error = await failure(t.runner, "nope", {});
      expect(error).toBeInstanceOf(FunctionsError);
      expect(error).toMatchObject({ code: "FUNCTION_NOT_FOUND", status: 404, expose: true });
      expect(error.message).toBe('No function named "nope" exists.');
      const odd = await failure(t.runner, "<script>", {});
      expect(odd).toMatchObject({
        code: "FUNCTION_NOT_FOUND",
        message: "No function with this name exists.",
      });
    });

    describe("auth", () => {
      it.each([
        ["an anonymous caller", anonymousAuth, "userOnly", "AUTH_REQUIRED", 401],
        ["an anonymous caller of a guest function", anonymousAuth, "whoami", "AUTH_REQUIRED", 401],
        ["an empty user id", createAuthContext({ userId: "" }), "userOnly", "AUTH_REQUIRED", 401],
        [
          "a tenant without a user",
          createAuthContext({ tenantId: "t1" }),
          "userOnly",
          "AUTH_REQUIRED",
          401,
        ],
        ["a guest", guestAuth, "userOnly", "GUEST_NOT_ALLOWED", 403],
      ])("refuses %s", async (_case, auth, name, code, status) => {
        expect(await failure(t.runner, name, {}, auth)).toMatchObject({
          code,
          status,
          expose: true,
        });
      });

      it.each([
        ["a user", userAuth, "userOnly", "ok"],
        ["a user calling a guest function", userAuth, "whoami", { userId: "u1" }],
        ["a guest calling a guest function", guestAuth, "whoami", { userId: "g1" }],
        ["the admin token", adminAuth, "userOnly", "ok"],
        [
          "an admin flagged as guest",
          createAuthContext({ isAdmin: true, isGuest: true }),
          "userOnly",
          "ok",
        ],
      ])("admits %s", async (_case, auth, name, expected) => {
        expect(await t.runner.run(name, {}, auth)).toEqual(expected);
      });

      it("checks auth before arguments", async () => {
        expect(await failure(t.runner, "echo", { text: 1 }, anonymousAuth)).toMatchObject({
          code: "AUTH_REQUIRED",
        });
      });
    });

    describe("arguments", () => {
      it("passes parsed arguments to the handler", async () => {
        expect(await t.runner.run("echo", { text: "hi", n: 2 }, userAuth)).toEqual({
          text: "hi",
          n: 2,
        });
      });

      it.each([undefined, null])("reads %s as {}", async (raw) => {
        expect(await t.runner.run("noArgs", raw, userAuth)).toEqual({ keys: [] });
      });

      it.each([
        ["an array", [], "The arguments must be a JSON object."],
        ["a string", "text", "The arguments must be a JSON object."],
        ["a wrong type", { text: 3 }, 'Invalid argument "text": expected string, received number.'],
        ["a missing argument", {}, 'Missing argument "text".'],
        ["an unknown argument", { text: "a", extra: true }, 'Unknown argument "extra".'],
      ])("answers INVALID_ARGS for %s", async (_case, raw, message) => {
        const error = await failure(t.runner, "echo", raw, userAuth);
        expect(error).toMatchObject({ code: "INVALID_ARGS", status: 400, expose: true, message });
      });

      it("hands undeclared arguments to the handler as they came", async () => {
        expect(await t.runner.run("noArgs", { x: 1 }, userAuth)).toEqual({ keys: ["x"] });
      });
    });

    describe("errors", () => {
      it("raises an application error with status 400 by default", async () => {
        const error = await failure(t.runner, "raise", { code: "TODO_NOT_FOUND" });
        expect(error).toBeInstanceOf(FunctionsError);
        expect(error).toMatchObject({
          code: "TODO_NOT_FOUND",
          status: 400,
          expose: true,
          message: "Raised on purpose.",
        });
      });

      it("raises an application error with its status", async () => {
        expect(await failure(t.runner, "raise", { code: "GONE", status: 410 })).toMatchObject({
          code: "GONE",
          status: 410,
        });
      });

      it.each([
        ["a lower-case code", { code: "not_found" }],
        ["a status below 400", { code: "OK_ISH", status: 200 }],
        ["a fractional status", { code: "ODD", status: 404.5 }],
      ])("turns ctx.error with %s into FUNCTION_FAILED", async (_case, args) => {
        const error = await failure(t.runner, "raise", args);
        expect(error).toMatchObject({
          code: "FUNCTION_FAILED",
          status: 500,
          message: "Function raise failed.",
        });
        expect(error.cause).toBeInstanceOf(TypeError);
      });

      it.each([
        ["store", StoreError, "NOT_FOUND", 404],
        ["schema", SchemaError, "INVALID_ID", 400],
      ])("passes a thrown %s wire error through unchanged", async (which, type, code, status) => {
        const error = await failure(t.runner, "throwExposed", { which });
        expect(error).toBeInstanceOf(type);
        expect(error).toMatchObject({ code, status, expose: true });
      });
    });

    describe("results", () => {
      it("answers null for undefined", async () => {
        expect(await t.runner.run("returnNothing", {}, userAuth)).toBeNull();
      });

      it("answers what JSON carries", async () => {
        expect(await t.runner.run("returnDate", {}, userAuth)).toEqual({
          at: "2024-05-01T10:00:00.000Z",
        });
      });
    });
  });
}

describe("createFunctionRunner registry check", () => {
  it("refuses a registry entry that is not a definition", () => {
    const store = {} as Store;
    const bogus = new Map([["bad", { type: "query" } as unknown as FunctionDefinition]]);
    let caught: unknown;
    try {
      createFunctionRunner({ store, functions: bogus });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FunctionsError);
    expect(caught).toMatchObject({
      code: "INVALID_FUNCTION",
      message: 'Function bad is not a function definition: "handler" must be a function.',
    });
  });
});
