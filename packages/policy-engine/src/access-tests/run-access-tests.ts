import type { CompiledPolicies, PolicyAuth, PolicyRow } from "../condition.js";
import type { PolicyAction } from "../errors.js";
import { tableLookup } from "../table-lookup.js";
import {
  type AccessDecider,
  type AccessDecision,
  decideStoreAccess,
  describeDecider,
} from "./decide-access.js";
import { type AccessCheck, resolveAccessSuite } from "./resolve-suite.js";
import {
  type AccessTestDatabase,
  type ScratchTables,
  type WriteCandidate,
  withScratchTables,
} from "./scratch-database.js";
import { parseAccessSuite } from "./suite-schema.js";

/** A check whose outcome was not what it should be. */
export interface AccessMismatch {
  /**
   * `expectation`: the evaluator's verdict differs from the file's;
   * `sql`: a database's compiled SQL differs from the evaluator (a compiler
   * or storage disagreement, never the file's fault).
   */
  readonly kind: "expectation" | "sql";
  /** The entry's index in `expect`, and its `name`. */
  readonly index: number;
  readonly label?: string;
  readonly caller: string;
  readonly auth: PolicyAuth;
  readonly action: PolicyAction;
  readonly entity: string;
  /** The stored row's name. */
  readonly row?: string;
  /** The row the rules saw as `data` (an insert's after owner stamping, an update's merged row). */
  readonly data?: PolicyRow;
  readonly existing?: PolicyRow;
  /** What should have come out: the file's verdict, or (for `sql`) the evaluator's. */
  readonly expected: "allow" | "deny";
  /** What came out: the evaluator's verdict, or the database's. */
  readonly actual: "allow" | "deny";
  /** The database that disagreed (`sql` only). */
  readonly database?: string;
  /** What decided in the evaluator, and the same as one sentence. */
  readonly decider: AccessDecider;
  readonly reason: string;
}

/** What `runAccessTests` reports. */
export interface AccessTestReport {
  /** Checks run: one per caller and action of each entry. */
  readonly checks: number;
  /** The databases the SQL ran on, by name. */
  readonly databases: readonly string[];
  readonly mismatches: readonly AccessMismatch[];
}

/** Options of `runAccessTests`. */
export interface RunAccessTestsOptions {
  /** Names the file in error messages. Default `policies.test.json`. */
  readonly source?: string;
  /** Databases the compiled SQL also runs on (each in a rolled-back transaction). Default: none. */
  readonly databases?: readonly AccessTestDatabase[];
}

const verdict = (allowed: boolean): "allow" | "deny" => (allowed ? "allow" : "deny");

/** Whether the store settles the check before any SQL runs (same outcome in every dialect). */
function settledBeforeSQL(decider: AccessDecider): boolean {
  return (
    decider.kind === "admin" ||
    decider.kind === "no-rule" ||
    decider.kind === "owner-mismatch" ||
    decider.kind === "owner-immutable"
  );
}

interface Decided {
  readonly check: AccessCheck;
  readonly decision: AccessDecision;
}

function mismatch(
  { check, decision }: Decided,
  kind: AccessMismatch["kind"],
  expected: boolean,
  actual: boolean,
  database?: string,
): AccessMismatch {
  const data = decision.data;
  return {
    kind,
    index: check.index,
    ...(check.label !== undefined && { label: check.label }),
    caller: check.caller.name,
    auth: check.caller.auth,
    action: check.action,
    entity: check.entity,
    ...(check.rowName !== undefined && { row: check.rowName }),
    ...(data !== undefined && { data }),
    ...(check.existing !== undefined && check.action !== "insert" && { existing: check.existing }),
    expected: verdict(expected),
    actual: verdict(actual),
    ...(database !== undefined && { database }),
    decider: decision.decider,
    reason: describeDecider(decision.decider, check.entity, check.action),
  };
}

/** The SQL verdict of each decided check (by position), on one database. */
async function sqlVerdicts(
  scratch: ScratchTables,
  decided: readonly Decided[],
): Promise<Map<number, boolean>> {
  const out = new Map<number, boolean>();
  const groups = new Map<
    string,
    { auth: PolicyAuth; entity: string; action: PolicyAction; items: number[] }
  >();
  decided.forEach(({ check, decision }, position) => {
    if (settledBeforeSQL(decision.decider)) return;
    const key = `${check.caller.name}\u0000${check.entity}\u0000${check.action}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { auth: check.caller.auth, entity: check.entity, action: check.action, items: [] };
      groups.set(key, group);
    }
    group.items.push(position);
  });
  for (const group of groups.values()) {
    if (group.action === "read") {
      const visible = await scratch.readable(group.entity, group.auth);
      for (const position of group.items) {
        out.set(position, visible.has(String(decided[position]?.check.existing?.id)));
      }
      continue;
    }
    const candidates: WriteCandidate[] = group.items.map((position) => {
      const item = decided[position];
      const existingId = item?.check.existing?.id;
      return {
        key: String(position),
        ...(item?.decision.data !== undefined && { data: item.decision.data }),
        ...(group.action !== "insert" && { existingId: String(existingId) }),
      };
    });
    const allowed = await scratch.writable(group.entity, group.action, group.auth, candidates);
    for (const position of group.items) out.set(position, allowed.has(String(position)));
  }
  return out;
}

/**
 * Runs an access tests file (`policies.test.json`, already parsed from
 * JSON) against compiled policies: each expectation is decided by the
 * reference evaluator the way the store decides (admin token, entity gate,
 * owner field, the read policy in front of updates and deletes, then the
 * rules), compared with the file, and, on each database given, by the SQL
 * the policies compile to over the same rows, compared with the evaluator.
 * Returns every mismatch with its caller, row and the rule that decided.
 * Throws `INVALID_ACCESS_TESTS` when the file does not fit its schema or
 * the manifest.
 *
 * @example
 * const report = await runAccessTests(compiled, JSON.parse(text), {
 *   source: "policies.test.json",
 *   databases: [{ name: "sqlite", dialect: "sqlite", db }],
 * });
 * report.mismatches.length; // 0 when every expectation holds, in memory and in SQL
 */
export async function runAccessTests(
  compiled: CompiledPolicies,
  file: unknown,
  options: RunAccessTestsOptions = {},
): Promise<AccessTestReport> {
  const source = options.source ?? "policies.test.json";
  const suite = resolveAccessSuite(compiled.manifest, parseAccessSuite(file, source), source);
  const lookup = tableLookup(suite.tables);
  const decided: Decided[] = suite.checks.map((check) => ({
    check,
    decision: decideStoreAccess(compiled, {
      entity: check.entity,
      action: check.action,
      auth: check.caller.auth,
      lookup,
      ...(check.data !== undefined && { data: check.data }),
      ...(check.existing !== undefined && { existing: check.existing }),
    }),
  }));
  const mismatches: AccessMismatch[] = [];
  for (const item of decided) {
    if (item.decision.allowed !== item.check.expected) {
      mismatches.push(mismatch(item, "expectation", item.check.expected, item.decision.allowed));
    }
  }
  const databases = options.databases ?? [];
  for (const database of databases) {
    const verdicts = await withScratchTables(database, compiled, async (scratch) => {
      await scratch.load(suite.tables);
      return sqlVerdicts(scratch, decided);
    });
    for (const [position, allowed] of verdicts) {
      const item = decided[position];
      if (item !== undefined && allowed !== item.decision.allowed) {
        mismatches.push(mismatch(item, "sql", item.decision.allowed, allowed, database.name));
      }
    }
  }
  return {
    checks: decided.length,
    databases: databases.map((database) => database.name),
    mismatches,
  };
}
