import type { PolicyRow } from "./condition.js";
import type { ExistsLookup } from "./evaluate.js";
import { compareKindOf, readField, valuesEqual } from "./values.js";

/** In-memory rows per entity name, for answering `exists(...)` without a database. */
export type PolicyTables = Readonly<Record<string, readonly PolicyRow[]>>;

/**
 * An `ExistsLookup` over in-memory rows, with the evaluator's equality (a
 * condition value of null matches a null or missing field). Pure.
 *
 * @example
 * const lookup = tableLookup({ Member: [{ id: "m1", userId: "u1", orgId: "o1" }] });
 * evaluate(rule, { auth, data, lookup });
 */
export function tableLookup(tables: PolicyTables): ExistsLookup {
  return (entity, conditions) =>
    (tables[entity] ?? []).some((row) =>
      conditions.every(({ field, type, value }) => {
        const stored = readField(row, { entity, name: field, type, nullable: true });
        return value === null ? stored === null : valuesEqual(stored, value, compareKindOf(type));
      }),
    );
}
