import type { AccessDecision } from "../access-tests/decide-access.js";
import {
  type AccessTestDatabase,
  type WriteCandidate,
  withScratchTables,
} from "../access-tests/scratch-database.js";
import type { CompiledPolicies, Condition, PolicyRow } from "../condition.js";
import type { PolicyTables } from "../table-lookup.js";
import type { Candidate } from "./candidates.js";
import { leavesOf } from "./condition-leaves.js";

/** What the SQL of one database said about a batch of candidates. */
export interface SqlCheck {
  readonly database: string;
  /** Candidates whose SQL verdict was computed (the store settles the others before any SQL). */
  readonly checked: number;
  /** Positions (in the batch) where the SQL verdict differs from the evaluator's. */
  readonly disagreements: readonly number[];
}

/** Whether `condition` looks `entity` up anywhere. */
function looksUp(condition: Condition, entity: string): boolean {
  for (const leaf of leavesOf(condition)) {
    if (leaf.kind === "exists" && leaf.entity === entity) return true;
  }
  return false;
}

function settled(decision: AccessDecision): boolean {
  const kind = decision.decider.kind;
  return (
    kind === "admin" ||
    kind === "no-rule" ||
    kind === "owner-mismatch" ||
    kind === "owner-immutable"
  );
}

interface Round {
  readonly tables: PolicyTables;
  readonly positions: number[];
}

/**
 * Splits candidates sharing one world into rounds that can be loaded
 * together: the rows they read must have distinct ids (also from the
 * world's), and when the rules look up their own entity each round holds
 * one candidate, so no candidate's row is seen by another's lookup.
 */
function rounds(
  candidates: readonly Candidate[],
  positions: readonly number[],
  alone: boolean,
): Round[] {
  const out: { tables: Record<string, PolicyRow[]>; ids: Set<string>; positions: number[] }[] = [];
  for (const position of positions) {
    const candidate = candidates[position];
    if (candidate === undefined) continue;
    const row = candidate.existing;
    const id = row === undefined ? undefined : String(row.id);
    let round = out.find(
      (item) => !(alone && item.positions.length > 0) && (id === undefined || !item.ids.has(id)),
    );
    if (round === undefined) {
      const tables: Record<string, PolicyRow[]> = {};
      const ids = new Set<string>();
      for (const [entity, rows] of Object.entries(candidate.world)) {
        tables[entity] = [...rows];
        if (entity === candidate.entity) for (const stored of rows) ids.add(String(stored.id));
      }
      if (id !== undefined && ids.has(id)) continue; // its row collides with the world's: not checkable in SQL
      round = { tables, ids, positions: [] };
      out.push(round);
    }
    if (row !== undefined && id !== undefined) {
      round.ids.add(id);
      const table = round.tables[candidate.entity] ?? [];
      table.push(row);
      round.tables[candidate.entity] = table;
    }
    round.positions.push(position);
  }
  return out;
}

/**
 * Runs candidates of one entity and action through the SQL the policies
 * compile to on one database (scratch tables in a rolled-back
 * transaction), and reports where the SQL and the evaluator's decisions
 * (`decisions`, by position) disagree. Reads use `compileReadFilter`;
 * writes `compileAccessFilter`, behind the read filter for updates and
 * deletes, as the store does.
 */
export async function checkCandidatesInSQL(
  database: AccessTestDatabase,
  compiled: CompiledPolicies,
  candidates: readonly Candidate[],
  decisions: readonly AccessDecision[],
): Promise<SqlCheck> {
  const first = candidates[0];
  if (first === undefined) return { database: database.name, checked: 0, disagreements: [] };
  const { entity, action } = first;
  const rules = compiled.rules.get(entity);
  const alone =
    rules !== undefined &&
    [...rules[action], ...rules.read].some((rule) => looksUp(rule.condition, entity));
  const byWorld = new Map<string, number[]>();
  candidates.forEach((candidate, position) => {
    const decision = decisions[position];
    if (decision === undefined || settled(decision)) return;
    const key = JSON.stringify(candidate.world);
    const group = byWorld.get(key) ?? [];
    group.push(position);
    byWorld.set(key, group);
  });
  let checked = 0;
  const disagreements: number[] = [];
  await withScratchTables(database, compiled, async (scratch) => {
    for (const positions of byWorld.values()) {
      for (const round of rounds(candidates, positions, alone)) {
        await scratch.load(round.tables);
        const byCaller = new Map<string, number[]>();
        for (const position of round.positions) {
          const key = JSON.stringify(candidates[position]?.auth);
          const group = byCaller.get(key) ?? [];
          group.push(position);
          byCaller.set(key, group);
        }
        for (const group of byCaller.values()) {
          const auth = candidates[group[0] ?? 0]?.auth;
          if (auth === undefined) continue;
          let allowed: (position: number) => boolean;
          if (action === "read") {
            const visible = await scratch.readable(entity, auth);
            allowed = (position) => visible.has(String(candidates[position]?.existing?.id));
          } else {
            const writes: WriteCandidate[] = group.map((position) => {
              const data = decisions[position]?.data;
              const existing = candidates[position]?.existing;
              return {
                key: String(position),
                ...(data !== undefined && { data }),
                ...(existing !== undefined && { existingId: String(existing.id) }),
              };
            });
            const keys = await scratch.writable(entity, action, auth, writes);
            allowed = (position) => keys.has(String(position));
          }
          for (const position of group) {
            checked += 1;
            if (allowed(position) !== decisions[position]?.allowed) disagreements.push(position);
          }
        }
      }
    }
  });
  return { database: database.name, checked, disagreements };
}
