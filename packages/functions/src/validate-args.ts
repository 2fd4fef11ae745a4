import { formatPath } from "@svc/schema";
import { FunctionsError } from "./errors.js";

/** One problem as zod (any version) reports it. */
interface IssueLike {
  readonly path?: readonly PropertyKey[];
  readonly message?: string;
  readonly code?: string;
  readonly keys?: readonly string[];
}

type SafeParseResult =
  | { readonly success: true; readonly data: unknown }
  | { readonly success: false; readonly error?: { readonly issues?: readonly IssueLike[] } };

/** The part of a zod schema the runner uses; duck-typed so any zod copy works. */
export interface ZodLike {
  safeParse(value: unknown): SafeParseResult;
}

/** Validates raw call arguments and returns the parsed ones. */
export type ArgsValidator = (raw: unknown) => Record<string, unknown>;

/** Whether `value` looks like a zod schema (has `safeParse`). */
export function isZodLike(value: unknown): value is ZodLike {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { safeParse?: unknown }).safeParse === "function"
  );
}

/** Whether `value` is a plain object (`{}` literal or null-prototype), not an array or class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Builds the validator for a function's `args` declaration: a zod schema, a
 * record of zod schemas, or nothing (any JSON object, unvalidated). Unknown keys are
 * rejected, except by a zod object declared loose or with a catchall.
 * Failures throw `INVALID_ARGS` naming the first bad argument.
 */
export function createArgsValidator(spec: unknown): ArgsValidator {
  // Without a declaration the handler validates for itself (the only option
  // of an import-free .mjs function), so any JSON object passes.
  if (spec === undefined) return toArgsObject;
  if (isZodLike(spec)) {
    const known = strictShapeKeys(spec);
    return (raw) => {
      const args = toArgsObject(raw);
      if (known) checkKeys(args, known);
      const result = spec.safeParse(args);
      if (!result.success) throw invalidArgs(firstIssue(result.error?.issues), args);
      if (!isPlainObject(result.data)) throw invalidArgs(undefined, args);
      return result.data;
    };
  }
  const shape = Object.entries(spec as Record<string, ZodLike>);
  const keys = shape.map(([key]) => key);
  return (raw) => {
    const args = checkKeys(toArgsObject(raw), keys);
    const parsed: Record<string, unknown> = {};
    for (const [key, schema] of shape) {
      const result = schema.safeParse(args[key]);
      if (!result.success) {
        const issue = firstIssue(result.error?.issues);
        throw invalidArgs({ ...issue, path: [key, ...(issue?.path ?? [])] }, args);
      }
      if (result.data !== undefined || Object.hasOwn(args, key)) parsed[key] = result.data;
    }
    return parsed;
  };
}

function toArgsObject(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (!isPlainObject(raw)) {
    throw new FunctionsError("INVALID_ARGS", { message: "The arguments must be a JSON object." });
  }
  return raw;
}

function checkKeys(
  args: Record<string, unknown>,
  known: readonly string[],
): Record<string, unknown> {
  for (const key of Object.keys(args)) {
    if (!known.includes(key)) {
      throw new FunctionsError("INVALID_ARGS", { message: `Unknown argument "${key}".` });
    }
  }
  return args;
}

/**
 * The keys of a zod object that strips unknown keys by default; undefined for
 * any other schema (strict objects reject them themselves, loose ones keep them).
 */
function strictShapeKeys(schema: ZodLike): readonly string[] | undefined {
  const { shape, _zod } = schema as { shape?: unknown; _zod?: { def?: Record<string, unknown> } };
  const def = _zod?.def;
  if (!isPlainObject(shape) || def?.type !== "object" || def.catchall !== undefined) {
    return undefined;
  }
  return Object.keys(shape);
}

function firstIssue(issues: readonly IssueLike[] | undefined): IssueLike | undefined {
  return issues?.[0];
}

function invalidArgs(issue: IssueLike | undefined, args: Record<string, unknown>): FunctionsError {
  if (!issue) return new FunctionsError("INVALID_ARGS");
  const path = issue.path ?? [];
  if (issue.code === "unrecognized_keys" && issue.keys?.[0] !== undefined) {
    return new FunctionsError("INVALID_ARGS", {
      message: `Unknown argument "${formatPath([...path, issue.keys[0]])}".`,
    });
  }
  if (path.length === 0) {
    return new FunctionsError("INVALID_ARGS", {
      message: `The arguments are invalid: ${describe(issue.message)}.`,
    });
  }
  const name = formatPath(path);
  if (issue.code === "invalid_type" && valueAt(args, path) === undefined) {
    return new FunctionsError("INVALID_ARGS", { message: `Missing argument "${name}".` });
  }
  return new FunctionsError("INVALID_ARGS", {
    message: `Invalid argument "${name}": ${describe(issue.message)}.`,
  });
}

/** Zod's message without its generic prefix and final period, or a fallback. */
function describe(message: string | undefined): string {
  const text = (message ?? "")
    .replace(/^Invalid input:\s*/i, "")
    .replace(/[.\s]+$/, "")
    .replace(/\s+/g, " ");
  return text === "" ? "invalid value" : text;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
