import { type EntityDef, type FieldDef, normalizeDatetime } from "@svc/schema";
import { DEFAULT_DATETIME, defaultValue } from "../access-tests/rows.js";
import type { PolicyAuth } from "../condition.js";
import { createPolicyAuth } from "../testing.js";
import type { PolicyValue } from "../values.js";
import { type FieldMentions, fieldKey, type Mentions } from "./mentions.js";

/** The user ids the search gives callers and rows (plus literals the rules compare `auth.userId` with). */
export const SEARCH_USERS = ["u1", "u2"] as const;
/** The tenant ids the search uses (plus literals the rules compare `auth.tenantId` with). */
export const SEARCH_TENANTS = ["t1", "t2"] as const;
/** A text value no rule mentions: "something else". */
export const OTHER_TEXT = "other";

/** The values the search tries for each field an entity's rules read. */
export type FieldPools = ReadonlyMap<string, readonly PolicyValue[]>;

function subsets(items: readonly string[]): string[][] {
  if (items.length > 3) return [[], ...items.map((item) => [item]), [...items]];
  let out: string[][] = [[]];
  for (const item of items) out = [...out, ...out.map((set) => [...set, item])];
  return out;
}

/**
 * The callers searched: the anonymous caller, then every combination of a
 * user id (`u1` and literals the rules compare `auth.userId` with), a
 * tenant (none, `t1` and literals, when a rule reads `auth.tenantId`), the
 * roles and entitlements the rules mention (every subset of up to three,
 * else none, each alone and all), and guest or not (when a rule reads
 * `auth.isGuest`). The admin token is left out: it bypasses every policy.
 */
export function searchCallers(mentions: Mentions): PolicyAuth[] {
  const users = ["u1", ...[...mentions.userLiterals].filter((user) => user !== "u1")];
  const tenants: (string | null)[] =
    mentions.tenant || mentions.tenantLiterals.size > 0
      ? [null, "t1", ...[...mentions.tenantLiterals].filter((tenant) => tenant !== "t1")]
      : [null];
  const roleSets = subsets([...mentions.roles].sort());
  const entitlementSets = subsets([...mentions.entitlements].sort());
  const guests = mentions.isGuest ? [false, true] : [false];
  const callers: PolicyAuth[] = [createPolicyAuth()];
  for (const isGuest of guests) {
    for (const userId of users) {
      for (const tenantId of tenants) {
        for (const roles of roleSets) {
          for (const entitlements of entitlementSets) {
            callers.push(createPolicyAuth({ userId, tenantId, roles, entitlements, isGuest }));
          }
        }
      }
    }
  }
  return callers;
}

function shiftDatetime(iso: string, ms: number): string | null {
  const time = Date.parse(iso) + ms;
  return Number.isNaN(time) ? null : normalizeDatetime(new Date(time).toISOString());
}

function numberPool(mentioned: FieldMentions, integer: boolean): PolicyValue[] {
  const out = new Set<number>([0, 1]);
  for (const literal of mentioned.literals) {
    if (typeof literal !== "number") continue;
    for (const value of [literal - 1, literal, literal + 1]) {
      if (!integer || Number.isSafeInteger(value)) out.add(value);
    }
    if (!integer) out.add(literal + 0.5);
  }
  return [...out];
}

function datetimePool(mentioned: FieldMentions): PolicyValue[] {
  const out = new Set<string>([
    DEFAULT_DATETIME,
    shiftDatetime(DEFAULT_DATETIME, 1000) ?? DEFAULT_DATETIME,
  ]);
  for (const literal of mentioned.literals) {
    if (typeof literal !== "string") continue;
    const at = normalizeDatetime(literal);
    if (at === null) continue;
    for (const value of [shiftDatetime(at, -1), at, shiftDatetime(at, 1)]) {
      if (value !== null) out.add(value);
    }
  }
  return [...out];
}

function textPool(mentioned: FieldMentions, mentions: Mentions): PolicyValue[] {
  const out = new Set<string>();
  for (const literal of mentioned.literals) if (typeof literal === "string") out.add(literal);
  if (mentioned.userish) {
    for (const user of [...SEARCH_USERS, ...mentions.userLiterals]) out.add(user);
  }
  if (mentioned.tenantish) {
    for (const tenant of [...SEARCH_TENANTS, ...mentions.tenantLiterals]) out.add(tenant);
  }
  if (mentioned.ordered) out.add("");
  out.add(OTHER_TEXT);
  return [...out];
}

/** The values the search tries for one field the rules read. */
function poolFor(
  field: FieldDef | undefined,
  mentioned: FieldMentions,
  mentions: Mentions,
): PolicyValue[] {
  const type = field?.type ?? mentioned.field.type;
  let values: PolicyValue[];
  switch (type) {
    case "bool":
      values = [true, false];
      break;
    case "int":
      values = numberPool(mentioned, true);
      break;
    case "float":
      values = numberPool(mentioned, false);
      break;
    case "datetime":
      values = datetimePool(mentioned);
      break;
    case "enum":
      values = [
        ...((field?.type === "enum" ? field.values : undefined) ?? mentioned.field.values ?? []),
      ];
      break;
    case "json":
      values = [];
      break;
    default:
      values = textPool(mentioned, mentions);
  }
  const nullable = field === undefined ? mentioned.field.nullable : field.optional;
  if (nullable || values.length === 0) values.push(null);
  return values;
}

/**
 * For each field of `entity` that some rule reads (including `id`), the
 * values the search tries: the literals it is compared with (numbers and
 * date-times with their neighbours), the search's user and tenant ids when
 * it is compared with `auth.userId`/`auth.tenantId` or with a field that
 * is, `"other"`, both booleans, every enum value, and null when optional.
 * Fields no rule reads keep one default value.
 */
export function fieldPools(entity: EntityDef, mentions: Mentions): FieldPools {
  const pools = new Map<string, readonly PolicyValue[]>();
  const idMentioned = mentions.fields.get(fieldKey(entity.name, "id"));
  if (idMentioned !== undefined) {
    pools.set(
      "id",
      textPool(idMentioned, mentions).filter((value) => value !== null),
    );
  }
  for (const field of entity.fields) {
    const mentioned = mentions.fields.get(fieldKey(entity.name, field.name));
    if (mentioned !== undefined) pools.set(field.name, poolFor(field, mentioned, mentions));
  }
  return pools;
}

/** A row of `entity` with every field at its default (null when optional). */
export function defaultRow(entity: EntityDef): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const field of entity.fields) row[field.name] = defaultValue(field);
  return row;
}
