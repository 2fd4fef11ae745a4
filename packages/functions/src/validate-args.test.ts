import { thrownBy } from "@svc/tooling/thrown";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctionsError } from "./errors.js";
import { createArgsValidator } from "./validate-args.js";

function messageOf(run: () => unknown): string {
  const error = thrownBy(FunctionsError, run);
  expect(error).toMatchObject({ code: "INVALID_ARGS", status: 400 });
  return error.message;
}

const shape = {
  title: z.string().min(1),
  priority: z.enum(["low", "high"]).optional(),
  tags: z.array(z.object({ name: z.string() })).default([]),
};

/** The three ways a function may declare the same arguments. */
const specForms = [
  ["a record of schemas", shape],
  ["a zod object", z.object(shape)],
  ["a strict zod object", z.strictObject(shape)],
] as const;

describe("createArgsValidator", () => {
  it.each(specForms)("parses valid arguments for %s", (_case, spec) => {
    const validate = createArgsValidator(spec);
    expect(validate({ title: "Milk" })).toEqual({ title: "Milk", tags: [] });
    expect(validate({ title: "Milk", priority: "high", tags: [{ name: "x" }] })).toEqual({
      title: "Milk",
      priority: "high",
      tags: [{ name: "x" }],
    });
  });

  it.each(specForms)("names the first bad argument for %s", (_case, spec) => {
    const validate = createArgsValidator(spec);
    expect(messageOf(() => validate({}))).toBe('Missing argument "title".');
    expect(messageOf(() => validate({ title: 3 }))).toBe(
      'Invalid argument "title": expected string, received number.',
    );
    expect(messageOf(() => validate({ title: "" }))).toMatch(/^Invalid argument "title": .+\.$/);
    expect(messageOf(() => validate({ title: "x", tags: [{ name: 1 }] }))).toBe(
      'Invalid argument "tags[0].name": expected string, received number.',
    );
    expect(messageOf(() => validate({ title: "x", color: "red" }))).toBe(
      'Unknown argument "color".',
    );
  });

  it("keeps unknown keys for a zod object declared loose", () => {
    const validate = createArgsValidator(z.looseObject({ a: z.number() }));
    expect(validate({ a: 1, b: 2 })).toEqual({ a: 1, b: 2 });
  });

  it("names a root-level refinement failure", () => {
    const validate = createArgsValidator(
      z
        .object({ from: z.number(), to: z.number() })
        .refine((v) => v.from <= v.to, "from must not exceed to"),
    );
    expect(messageOf(() => validate({ from: 2, to: 1 }))).toBe(
      "The arguments are invalid: from must not exceed to.",
    );
  });

  it.each([
    ["undefined", undefined],
    ["null", null],
  ])("reads %s arguments as {}", (_case, raw) => {
    expect(createArgsValidator(undefined)(raw)).toEqual({});
    expect(createArgsValidator({ n: z.number().optional() })(raw)).toEqual({});
  });

  it.each([
    ["an array", [1]],
    ["a string", "x"],
    ["a number", 1],
    ["a Date", new Date()],
  ])("rejects %s as arguments", (_case, raw) => {
    expect(messageOf(() => createArgsValidator(shape)(raw))).toBe(
      "The arguments must be a JSON object.",
    );
  });

  it("passes any object through when no arguments are declared", () => {
    const validate = createArgsValidator(undefined);
    expect(validate(undefined)).toEqual({});
    expect(validate({ x: 1, nested: { y: [2] } })).toEqual({ x: 1, nested: { y: [2] } });
    expect(messageOf(() => validate([1]))).toBe("The arguments must be a JSON object.");
  });

  it("works with a duck-typed schema that is not zod", () => {
    const even = {
      safeParse: (value: unknown) =>
        typeof value === "number" && value % 2 === 0
          ? { success: true as const, data: value }
          : { success: false as const, error: { issues: [{ path: [], message: "must be even" }] } },
    };
    const validate = createArgsValidator({ n: even });
    expect(validate({ n: 2 })).toEqual({ n: 2 });
    expect(messageOf(() => validate({ n: 3 }))).toBe('Invalid argument "n": must be even.');
  });
});
