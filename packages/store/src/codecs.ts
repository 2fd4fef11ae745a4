import type { FieldKind } from "@svc/schema";
import type { StoreDialect } from "./database.js";
import { dialectFor } from "./dialect/dialect-for.js";
import type { Row } from "./types.js";

/** Turns a checked, normalized API value into the value bound as a SQL parameter. */
export type Encoder = (value: unknown) => unknown;

const identity: Encoder = (value) => value;
// Bound as text on both dialects: pg would turn a JS array into a Postgres
// array literal, and SQLite stores json as text anyway.
const encodeJson: Encoder = (value) => (value === null ? null : JSON.stringify(value));
const encodeSqliteBool: Encoder = (value) => (value === null ? null : value === true ? 1 : 0);

/** The parameter encoder for a field kind on a dialect. */
export function encoderFor(kind: FieldKind, dialect: StoreDialect): Encoder {
  if (kind === "json") return encodeJson;
  if (kind === "bool" && dialectFor(dialect).booleansAsIntegers) return encodeSqliteBool;
  return identity;
}

/** Turns a driver row into an API row. */
export type RowDecoder = (row: Record<string, unknown>) => Row;

/** A field as the decoder sees it. */
export interface DecodedField {
  readonly name: string;
  readonly kind: FieldKind;
}

function decodeExpression(field: DecodedField): string {
  const value = `r[${JSON.stringify(field.name)}]`;
  if (field.kind === "bool") return `${value} === null ? null : ${value} === 1`;
  if (field.kind === "json")
    return `typeof ${value} === "string" ? JSON.parse(${value}) : ${value}`;
  return value;
}

/**
 * Compiles a decoder that builds each output row as one object literal, the
 * way better-sqlite3 builds its own rows: every row then shares one hidden
 * class and the loop stays monomorphic. (Rewriting the driver's row in place
 * instead changes a field from integer to boolean, which costs V8 far more.)
 * Field names are manifest identifiers, and quoted anyway. Returns null
 * where code generation is disabled.
 */
export function compileDecoder(fields: readonly DecodedField[]): RowDecoder | null {
  const properties = [{ name: "id", kind: "string" as const }, ...fields]
    .map((field) => `${JSON.stringify(field.name)}: ${decodeExpression(field)}`)
    .join(", ");
  try {
    const factory = new Function(`return (r) => ({ ${properties} });`) as () => RowDecoder;
    return factory();
  } catch {
    return null;
  }
}

/** The decoder used where code generation is disabled: rewrites the driver's row. */
export function inPlaceDecoder(fields: readonly DecodedField[]): RowDecoder {
  const bools = fields.filter((field) => field.kind === "bool").map((field) => field.name);
  const jsons = fields.filter((field) => field.kind === "json").map((field) => field.name);
  return (row) => {
    for (const name of bools) {
      const value = row[name];
      if (value !== null) row[name] = value === 1;
    }
    for (const name of jsons) {
      const value = row[name];
      if (typeof value === "string") row[name] = JSON.parse(value);
    }
    return row as Row;
  };
}

const asRow: RowDecoder = (row) => row as Row;

/**
 * Builds the function that turns a driver row (holding exactly `id` and the
 * fields) into an API row. Postgres needs none: the pool's type parsers
 * already yield API values, so the driver's row is returned as is. SQLite
 * needs bool from 0/1 and json from text; an entity without such fields
 * also keeps the driver's row. Otherwise each row costs one output object.
 */
export function rowDecoder(fields: readonly DecodedField[], dialect: StoreDialect): RowDecoder {
  if (!dialectFor(dialect).rowsNeedDecoding) return asRow;
  if (!fields.some((field) => field.kind === "bool" || field.kind === "json")) return asRow;
  return compileDecoder(fields) ?? inPlaceDecoder(fields);
}
