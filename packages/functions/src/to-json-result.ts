import { FunctionsError } from "./errors.js";
import { isPlainObject } from "./validate-args.js";

/**
 * Turns a handler's return value into what the client will receive:
 * `undefined` becomes `null`; a value that is already plain JSON is returned
 * as is (no copy); anything else (a `Date`, a class instance, an `undefined`
 * property, `NaN`) goes through a JSON round trip so in-process callers see
 * exactly what the wire carries. A value JSON cannot carry at all (a
 * `bigint`, a cycle, a function) throws `INVALID_RESULT`.
 */
export function toJSONResult(value: unknown, name: string): unknown {
  if (value === undefined) return null;
  if (isPlainJSON(value, new Set())) return value;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw invalidResult(name, error);
  }
  if (text === undefined) throw invalidResult(name, undefined);
  return JSON.parse(text);
}

function invalidResult(name: string, cause: unknown): FunctionsError {
  return new FunctionsError("INVALID_RESULT", {
    message: `Function ${name} returned a value that cannot be sent as JSON.`,
    cause,
  });
}

function isPlainJSON(value: unknown, ancestors: Set<object>): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (ancestors.has(value)) return false;
  ancestors.add(value);
  let plain = true;
  if (Array.isArray(value)) {
    for (const item of value) {
      if (item === undefined || !isPlainJSON(item, ancestors)) {
        plain = false;
        break;
      }
    }
  } else if (isPlainObject(value) && !("toJSON" in value)) {
    for (const key in value) {
      const item = value[key];
      if (item === undefined || !isPlainJSON(item, ancestors)) {
        plain = false;
        break;
      }
    }
  } else {
    plain = false;
  }
  ancestors.delete(value);
  return plain;
}
