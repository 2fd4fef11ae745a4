import {
  checkFieldValue,
  type EntityDef,
  findEntity,
  type Manifest,
  ownerField,
} from "@svc/schema";
import { idForName } from "../access-tests/rows.js";
import type { Condition, PolicyAuth, PolicyRow } from "../condition.js";
import type { PolicyAction } from "../errors.js";
import { type ExistsLookupCondition, evaluateRule } from "../evaluate.js";
import type { PolicyTables } from "../table-lookup.js";
import type { PolicyValue } from "../values.js";
import { defaultRow, type FieldPools } from "./domain.js";

/** Field kinds whose values a lookup's value may not fit (ids and text are stored as given). */
const CHECKED_KINDS = new Set(["int", "float", "bool", "enum"]);

/** Candidates searched per entity and action unless told otherwise. */
export const DEFAULT_SEARCH_BOUND = 20_000;

/** One situation the search tries: a caller, the row(s) the action reads, and other stored rows. */
export interface Candidate {
  readonly auth: PolicyAuth;
  readonly entity: string;
  readonly action: PolicyAction;
  /** The stored row (read, update, delete). */
  readonly existing?: PolicyRow;
  /** The row to insert (before owner stamping), or an update's new row. */
  readonly data?: PolicyRow;
  /** Other stored rows, built so the rules' `exists(...)` lookups find rows or not. */
  readonly world: PolicyTables;
}

/** How much of the space a search covered. */
export interface SearchCoverage {
  /** Caller and row combinations in the space (before stored-row variants). */
  readonly space: number;
  /** Combinations tried (all when `exhaustive`, else a seeded sample of `bound`). */
  readonly tried: number;
  /** Candidates evaluated, counting each stored-row variant. */
  readonly candidates: number;
  readonly exhaustive: boolean;
}

/** What a search enumerates: one entity and action over pools of values and callers. */
export interface SearchSpace {
  readonly manifest: Manifest;
  readonly entity: EntityDef;
  readonly action: PolicyAction;
  readonly callers: readonly PolicyAuth[];
  readonly pools: FieldPools;
  /** The rules whose `exists(...)` lookups shape the stored rows (both sides of a diff, a claim). */
  readonly conditions: readonly Condition[];
  /** Read rules in front of an update or delete: their lookups are made with `data` = the stored row. */
  readonly gateConditions?: readonly Condition[];
  /** Caller and row combinations tried at most. Default `DEFAULT_SEARCH_BOUND`. */
  readonly bound?: number;
  /** Seeds the sample when the space is larger than the bound. Default 1. */
  readonly seed?: number;
}

/** A small seeded PRNG (mulberry32): the same sample on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The row at `index` of the mixed-radix product of the pools. */
function rowAt(
  entity: EntityDef,
  pools: readonly (readonly [string, readonly PolicyValue[]])[],
  index: number,
): Record<string, unknown> {
  const row: Record<string, unknown> = defaultRow(entity);
  let rest = index;
  for (const [name, values] of pools) {
    row[name] = values[rest % values.length] ?? null;
    rest = Math.floor(rest / values.length);
  }
  if (!pools.some(([name]) => name === "id")) row.id = idForName(`${entity.name}/${index}`);
  return row;
}

/** One changed field (or none, `change` 0) of an update: the field and value index. */
function changeAt(
  pools: readonly (readonly [string, readonly PolicyValue[]])[],
  change: number,
): { name: string; offset: number } | null {
  let rest = change - 1;
  if (rest < 0) return null;
  for (const [name, values] of pools) {
    if (name === "id") continue;
    if (rest < values.length - 1) return { name, offset: rest + 1 };
    rest -= values.length - 1;
  }
  return null;
}

function requestKey(entity: string, conditions: readonly ExistsLookupCondition[]): string {
  return JSON.stringify([entity, conditions.map(({ field, value }) => [field, value])]);
}

/** The `exists(...)` lookups the conditions make for this caller and rows, answered either way. */
function existsRequests(
  space: SearchSpace,
  input: { auth: PolicyAuth; data?: PolicyRow; existing?: PolicyRow },
): { entity: string; conditions: readonly ExistsLookupCondition[] }[] {
  const found = new Map<string, { entity: string; conditions: readonly ExistsLookupCondition[] }>();
  for (const answer of [false, true]) {
    const lookup = (entity: string, asked: readonly ExistsLookupCondition[]): boolean => {
      found.set(requestKey(entity, asked), { entity, conditions: asked });
      return answer;
    };
    // A read's rules see the stored row as `data`.
    const seen = space.action === "read" ? { auth: input.auth, data: input.existing } : input;
    for (const condition of space.conditions) evaluateRule({ condition }, { ...seen, lookup });
    for (const condition of space.gateConditions ?? []) {
      evaluateRule({ condition }, { auth: input.auth, data: input.existing, lookup });
    }
  }
  return [...found.values()];
}

/**
 * The stored-row variants for one candidate: for each `exists(...)` lookup
 * the rules make, a world where a row meets it or not (every combination
 * of up to three lookups; beyond that none, each alone, and all).
 */
function worlds(
  manifest: Manifest,
  requests: readonly { entity: string; conditions: readonly ExistsLookupCondition[] }[],
  target: { readonly entity: string; readonly row: PolicyRow | undefined },
): PolicyTables[] {
  // A lookup no stored row could meet (0.5 in an int column, a value outside an enum) stays false.
  const storable = requests.filter((request) => {
    const entity = findEntity(manifest, request.entity);
    return request.conditions.every(({ field, value }) => {
      const def = entity?.fields.find((candidate) => candidate.name === field);
      if (def === undefined || value === null || !CHECKED_KINDS.has(def.type)) return true;
      return checkFieldValue(def, value).ok;
    });
  });
  const rows = storable.map((request, i) => {
    const entity = findEntity(manifest, request.entity);
    const row: Record<string, unknown> = entity === undefined ? {} : defaultRow(entity);
    row.id = idForName(`world/${i}/${requestKey(request.entity, request.conditions)}`);
    const pinned = new Map<string, unknown>();
    for (const { field, value } of request.conditions) {
      row[field] = value;
      pinned.set(field, value);
    }
    return { entity: request.entity, row, pinned };
  });
  let choices: number[][];
  if (rows.length <= 3) {
    choices = [[]];
    for (let i = 0; i < rows.length; i++)
      choices = [...choices, ...choices.map((set) => [...set, i])];
  } else {
    choices = [[], ...rows.map((_, i) => [i]), rows.map((_, i) => i)];
  }
  const out: PolicyTables[] = [];
  for (const choice of choices) {
    const world = buildWorld(
      choice.map((i) => rows[i]).filter((item) => item !== undefined),
      target,
    );
    if (world !== null) out.push(world);
  }
  return out;
}

/**
 * One world from the chosen lookup rows. A row whose lookup pins `id` is
 * that record: two such rows of one entity and id are one row (merged, or
 * the world cannot exist when they pin a field to different values), and
 * one with the target's id is the target itself (dropped when the target
 * meets it, else the world cannot exist). Returns null for a world no
 * database could hold.
 */
function buildWorld(
  chosen: readonly { entity: string; row: Record<string, unknown>; pinned: Map<string, unknown> }[],
  target: { readonly entity: string; readonly row: PolicyRow | undefined },
): PolicyTables | null {
  const tables: Record<string, Record<string, unknown>[]> = {};
  const byId = new Map<string, { row: Record<string, unknown>; pinned: Map<string, unknown> }>();
  for (const { entity, row, pinned } of chosen) {
    if (!pinned.has("id")) {
      tables[entity] = [...(tables[entity] ?? []), row];
      continue;
    }
    const id = String(pinned.get("id"));
    if (entity === target.entity && target.row !== undefined && String(target.row.id) === id) {
      const stored = target.row;
      if ([...pinned].some(([field, value]) => (stored[field] ?? null) !== value)) return null;
      continue;
    }
    const key = `${entity}\u0000${id}`;
    const same = byId.get(key);
    if (same === undefined) {
      const merged = { row: { ...row }, pinned: new Map(pinned) };
      byId.set(key, merged);
      tables[entity] = [...(tables[entity] ?? []), merged.row];
      continue;
    }
    for (const [field, value] of pinned) {
      if (same.pinned.has(field) && same.pinned.get(field) !== value) return null;
      same.pinned.set(field, value);
      same.row[field] = value;
    }
  }
  return tables;
}

/** The target rows of a caller-and-row index: what the action reads. */
function targetAt(
  space: SearchSpace,
  pools: readonly (readonly [string, readonly PolicyValue[]])[],
  rowCount: number,
  index: number,
): { existing?: PolicyRow; data?: PolicyRow } {
  const { entity, action } = space;
  if (action === "update") {
    const row = rowAt(entity, pools, index % rowCount);
    const change = changeAt(pools, Math.floor(index / rowCount));
    if (change === null) return { existing: row, data: row };
    const values = pools.find(([name]) => name === change.name)?.[1] ?? [];
    const original = values.indexOf(row[change.name] as PolicyValue);
    const value = values[(original + change.offset) % values.length] ?? null;
    return { existing: row, data: { ...row, [change.name]: value } };
  }
  const row = rowAt(entity, pools, index);
  if (action !== "insert") return { existing: row };
  // The store stamps the owner field; the row to insert leaves it out.
  const { id: _id, ...data } = row;
  const owner = ownerField(entity)?.name;
  if (owner !== undefined) delete data[owner];
  return { data: { ...data, id: idForName(`insert/${index}`) } };
}

/**
 * Enumerates the candidates of a bounded search over one entity and action:
 * every caller with every row built from the pools (an update: every row
 * with no change or one field changed to another pooled value; an insert:
 * the owner field left to the store's stamping), each with the stored-row
 * variants its `exists(...)` lookups call for. When the caller-and-row space
 * is larger than the bound, a seeded sample of `bound` combinations is
 * tried, in order. `coverage` is filled as the search runs.
 */
export function* searchCandidates(
  space: SearchSpace,
  coverage: { value: SearchCoverage },
): Generator<Candidate> {
  const { entity, action, callers } = space;
  const owner = ownerField(entity)?.name;
  const pools = [...space.pools].filter(
    ([name]) => !(action === "insert" && (name === owner || name === "id")),
  );
  const rowCount = pools.reduce((product, [, values]) => product * Math.max(values.length, 1), 1);
  const changes =
    action === "update"
      ? 1 + pools.reduce((sum, [name, values]) => sum + (name === "id" ? 0 : values.length - 1), 0)
      : 1;
  const targets = rowCount * changes;
  const total = callers.length * targets;
  const bound = Math.max(1, space.bound ?? 20_000);
  let indices: Iterable<number>;
  if (total <= bound) {
    indices = {
      [Symbol.iterator]: function* () {
        for (let i = 0; i < total; i++) yield i;
      },
    };
  } else {
    const next = random(space.seed ?? 1);
    const picked = new Set<number>();
    while (picked.size < bound) picked.add(Math.floor(next() * total));
    indices = [...picked].sort((a, b) => a - b);
  }
  let tried = 0;
  let candidates = 0;
  const update = () => {
    coverage.value = { space: total, tried, candidates, exhaustive: total <= bound };
  };
  update();
  for (const index of indices) {
    const auth = callers[Math.floor(index / targets)];
    if (auth === undefined) continue;
    const target = targetAt(space, pools, rowCount, index % targets);
    const stamped =
      action === "insert" && owner !== undefined && auth.userId !== null
        ? { ...target, data: { ...target.data, [owner]: auth.userId } }
        : target;
    tried += 1;
    for (const world of worlds(space.manifest, existsRequests(space, { auth, ...stamped }), {
      entity: entity.name,
      row: target.existing,
    })) {
      candidates += 1;
      update();
      yield { auth, entity: entity.name, action, world, ...target };
    }
  }
  update();
}

/** The stored rows a candidate's rules look up: its world, plus the target row it reads. */
export function candidateTables(candidate: Candidate): PolicyTables {
  if (candidate.existing === undefined) return candidate.world;
  const own = candidate.world[candidate.entity] ?? [];
  return { ...candidate.world, [candidate.entity]: [...own, candidate.existing] };
}
