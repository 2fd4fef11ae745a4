import { checkFieldValue, type EntityDef, findEntity, isValidId, type Manifest } from "@svc/schema";
import type { PolicyAuth, PolicyRow } from "../condition.js";
import type { PolicyAction } from "../errors.js";
import { createPolicyAuth } from "../testing.js";
import { completeRow, idForName } from "./rows.js";
import { type AccessCallerInput, type AccessSuiteInput, accessTestsError } from "./suite-schema.js";

/** A caller of the file, resolved to the auth context rules see. */
export interface AccessCaller {
  readonly name: string;
  readonly kind: "user" | "guest" | "anonymous" | "admin" | "apiKey";
  readonly auth: PolicyAuth;
}

/** A stored row of the file: its name, entity and values (every field present, ids resolved). */
export interface AccessRow {
  readonly name: string;
  readonly entity: string;
  readonly row: Readonly<Record<string, unknown>>;
}

/** One expectation for one caller and one action. */
export interface AccessCheck {
  /** The entry's index in `expect`. */
  readonly index: number;
  /** The entry's `name`, when it has one. */
  readonly label?: string;
  readonly caller: AccessCaller;
  readonly action: PolicyAction;
  readonly entity: string;
  /** The stored row's name (read, update, delete, and an insert made from a row). */
  readonly rowName?: string;
  /** Insert: the row given (before owner stamping). Update: the patch. */
  readonly data?: PolicyRow;
  /** The stored row (read, update, delete). */
  readonly existing?: PolicyRow;
  readonly expected: boolean;
}

/** The file resolved against a manifest. */
export interface ResolvedAccessSuite {
  readonly callers: ReadonlyMap<string, AccessCaller>;
  readonly rows: ReadonlyMap<string, AccessRow>;
  /** Entity name to its stored rows. */
  readonly tables: Readonly<Record<string, readonly PolicyRow[]>>;
  readonly checks: readonly AccessCheck[];
}

const ACTIONS: readonly PolicyAction[] = ["read", "insert", "update", "delete"];

class Problems {
  readonly list: string[] = [];
  add(where: string, message: string): void {
    if (this.list.length < 50) this.list.push(`${where}: ${message}`);
  }
}

function isRowRef(value: unknown): value is { $row: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    typeof (value as { $row?: unknown }).$row === "string"
  );
}

/** Row name to id, from the `id` field when given, else derived from the name. */
function rowIds(suite: AccessSuiteInput, problems: Problems): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [entity, rows] of Object.entries(suite.rows)) {
    for (const [name, fields] of Object.entries(rows)) {
      if (ids.has(name))
        problems.add(`rows.${entity}.${name}`, "a row of this name is declared twice");
      const given = fields.id;
      if (given !== undefined && (typeof given !== "string" || !isValidId(given))) {
        problems.add(`rows.${entity}.${name}.id`, "must be 40 lowercase hex characters");
      }
      ids.set(name, typeof given === "string" ? given : idForName(`${entity}/${name}`));
    }
  }
  return ids;
}

function resolveValue(value: unknown, ids: Map<string, string>, where: string, problems: Problems) {
  if (!isRowRef(value)) return value;
  const id = ids.get(value.$row);
  if (id === undefined) problems.add(where, `no row named ${JSON.stringify(value.$row)}`);
  return id ?? null;
}

/** Checks and resolves fields against the entity; `partial` leaves absent fields out. */
function resolveFields(
  entity: EntityDef,
  fields: Readonly<Record<string, unknown>>,
  ids: Map<string, string>,
  where: string,
  problems: Problems,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(fields)) {
    if (key === "id") continue;
    const field = entity.fields.find((candidate) => candidate.name === key);
    if (field === undefined) {
      problems.add(`${where}.${key}`, `${entity.name} has no field ${key}`);
      continue;
    }
    const value = resolveValue(raw, ids, `${where}.${key}`, problems);
    const checked = checkFieldValue(field, value);
    if (!checked.ok) problems.add(`${where}.${key}`, `field ${key} ${checked.issue.reason}`);
    else out[key] = checked.value;
  }
  return out;
}

function resolveCaller(
  name: string,
  input: AccessCallerInput,
  ids: Map<string, string>,
  problems: Problems,
): AccessCaller {
  const kind = input.kind ?? (input.userId === undefined ? "anonymous" : "user");
  const id = (key: "userId" | "tenantId") =>
    input[key] === undefined
      ? null
      : (resolveValue(input[key], ids, `callers.${name}.${key}`, problems) as string | null);
  const auth = createPolicyAuth({
    userId: id("userId"),
    tenantId: id("tenantId"),
    roles: input.roles ?? [],
    entitlements: input.entitlements ?? [],
    isAdmin: kind === "admin",
    isGuest: kind === "guest",
  });
  return { name, kind, auth };
}

/**
 * Resolves a parsed access tests file against a manifest: callers to auth
 * contexts, rows to complete stored rows (ids derived from names unless
 * given, `{ "$row": name }` to that row's id, missing required fields
 * defaulted), entries to one check per caller and action. Throws
 * `INVALID_ACCESS_TESTS` listing every problem with the file and entry.
 */
export function resolveAccessSuite(
  manifest: Manifest,
  suite: AccessSuiteInput,
  source: string,
): ResolvedAccessSuite {
  const problems = new Problems();
  const ids = rowIds(suite, problems);
  const rows = new Map<string, AccessRow>();
  const tables: Record<string, PolicyRow[]> = {};
  for (const [entityName, byName] of Object.entries(suite.rows)) {
    const entity = findEntity(manifest, entityName);
    if (entity === undefined) {
      problems.add(`rows.${entityName}`, `the manifest has no entity ${entityName}`);
      continue;
    }
    for (const [name, fields] of Object.entries(byName)) {
      const resolved = resolveFields(entity, fields, ids, `rows.${entityName}.${name}`, problems);
      const row = completeRow(entity, { ...resolved, id: ids.get(name) });
      rows.set(name, { name, entity: entity.name, row });
      const table = tables[entity.name] ?? [];
      table.push(row);
      tables[entity.name] = table;
    }
  }
  const callers = new Map<string, AccessCaller>();
  for (const [name, input] of Object.entries(suite.callers)) {
    callers.set(name, resolveCaller(name, input, ids, problems));
  }
  const checks: AccessCheck[] = [];
  suite.expect.forEach((entry, index) => {
    const where = `expect[${index}]`;
    const names = typeof entry.caller === "string" ? [entry.caller] : entry.caller;
    const entryCallers: AccessCaller[] = [];
    for (const name of names) {
      const caller = callers.get(name);
      if (caller === undefined)
        problems.add(`${where}.caller`, `no caller named ${JSON.stringify(name)}`);
      else entryCallers.push(caller);
    }
    const stored = entry.row === undefined ? undefined : rows.get(entry.row);
    if (entry.row !== undefined && stored === undefined) {
      problems.add(`${where}.row`, `no row named ${JSON.stringify(entry.row)}`);
      return;
    }
    const entityName = entry.entity ?? stored?.entity;
    const entity = entityName === undefined ? undefined : findEntity(manifest, entityName);
    if (entity === undefined) {
      problems.add(
        `${where}.entity`,
        entityName === undefined
          ? "give a row or an entity"
          : `the manifest has no entity ${entityName}`,
      );
      return;
    }
    if (stored !== undefined && stored.entity !== entity.name) {
      problems.add(
        `${where}.entity`,
        `row ${entry.row} is a ${stored.entity}, not a ${entity.name}`,
      );
      return;
    }
    const actions = ACTIONS.filter((action) => entry[action] !== undefined);
    if (actions.length === 0)
      problems.add(where, "expects nothing: give read, insert, update or delete");
    if (entry.data !== undefined && !actions.includes("insert") && !actions.includes("update")) {
      problems.add(`${where}.data`, "data is the row of an insert or the patch of an update");
    }
    const data =
      entry.data === undefined
        ? undefined
        : resolveFields(entity, entry.data, ids, `${where}.data`, problems);
    for (const action of actions) {
      if (action !== "insert" && stored === undefined) {
        problems.add(`${where}.${action}`, `a ${action} needs the stored row it acts on: give row`);
        continue;
      }
      const base = {
        index,
        ...(entry.name !== undefined && { label: entry.name }),
        action,
        entity: entity.name,
        ...(entry.row !== undefined && { rowName: entry.row }),
        expected: entry[action] === "allow",
      };
      for (const caller of entryCallers) {
        if (action === "insert") {
          const template = stored === undefined ? {} : { ...stored.row, id: undefined };
          const id = idForName(`insert/${index}/${caller.name}`);
          checks.push({ ...base, caller, data: { ...template, ...data, id } });
        } else {
          checks.push({
            ...base,
            caller,
            existing: stored?.row ?? {},
            ...(action === "update" && { data: data ?? {} }),
          });
        }
      }
    }
  });
  if (problems.list.length > 0) throw accessTestsError(source, problems.list);
  return { callers, rows, tables, checks };
}
