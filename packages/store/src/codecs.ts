import type { FieldKind } from "@svc/schema";
import type { StoreDialect } from "./database.js";
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
  if (kind === "bool" && dialect === "sqlite") return encodeSqliteBool;
  return identity;
}

/**
 * Builds the function that turns a driver row into an API row, in place: the
 * driver's object becomes the output, so a read allocates nothing per row
 * beyond what the driver already made. Only SQLite needs work (bool from
 * 0/1, json from text); the Postgres pool's type parsers already yield API
 * values.
 */
export function rowDecoder(
  fields: readonly { name: string; kind: FieldKind }[],
  dialect: StoreDialect,
): (row: Record<string, unknown>) => Row {
  const asRow = (row: Record<string, unknown>): Row => row as Row;
  if (dialect === "postgres") return asRow;
  const bools = fields.filter((field) => field.kind === "bool").map((field) => field.name);
  const jsons = fields.filter((field) => field.kind === "json").map((field) => field.name);
  if (bools.length === 0 && jsons.length === 0) return asRow;
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
