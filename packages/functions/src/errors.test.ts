import { describe, expect, it } from "vitest";
import { FunctionsError, functionsErrorCodes, isUpperSnakeCode } from "./errors.js";

describe("FunctionsError", () => {
  it.each(Object.keys(functionsErrorCodes))("%s is UPPER_SNAKE", (code) => {
    expect(isUpperSnakeCode(code)).toBe(true);
  });

  it.each(Object.entries(functionsErrorCodes))(
    "%s carries the table's status and message",
    (code, entry) => {
      const error = new FunctionsError(code as keyof typeof functionsErrorCodes);
      expect(error.code).toBe(code);
      expect(error.status).toBe(entry.status);
      expect(error.message).toBe(entry.message);
      expect(error.expose).toBe(entry.status !== undefined);
      expect(error.name).toBe("FunctionsError");
    },
  );

  it("keeps a custom message and the cause", () => {
    const cause = new Error("db down");
    const error = new FunctionsError("FUNCTION_FAILED", { message: "Function x failed.", cause });
    expect(error.message).toBe("Function x failed.");
    expect(error.cause).toBe(cause);
  });

  it("builds an application error with its own code and status", () => {
    const error = new FunctionsError("TODO_NOT_FOUND", {
      message: "No todo has this id.",
      status: 404,
    });
    expect(error).toMatchObject({ code: "TODO_NOT_FOUND", status: 404, expose: true });
  });

  it.each([
    ["TODO_NOT_FOUND", true],
    ["A", true],
    ["RATE_LIMITED_2", true],
    ["todo_not_found", false],
    ["TODO-NOT-FOUND", false],
    ["_TODO", false],
    ["TODO__X", false],
    ["TODO_", false],
    ["", false],
  ])("isUpperSnakeCode(%j) is %s", (code, expected) => {
    expect(isUpperSnakeCode(code)).toBe(expected);
  });
});
