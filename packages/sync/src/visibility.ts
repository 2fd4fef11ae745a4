import {
  type CompiledPolicies,
  checkAccess,
  type ExistsLookupCondition,
  type ExistsResolver,
  evaluateAccess,
} from "@svc/policy-engine";
import type { AuthContext } from "@svc/schema";
import { type EntityReader, type Row, StoreError } from "@svc/store";
import type { LoggedChange } from "./change-log.js";

/** One change as a caller receives it. */
export interface PulledChange {
  /** The entry's cursor (decimal string). */
  readonly cursor: string;
  readonly entity: string;
  /**
   * `insert`, `update`, `delete`, or `remove`: an update moved the row out
   * of what the caller may read (drop it; no row is sent). An update that
   * moves a row into view is an `update` with the row: apply updates as
   * upserts.
   */
  readonly op: "insert" | "update" | "delete" | "remove";
  readonly rowId: string;
  /** The row after the change (insert, update). */
  readonly row?: Row;
}

/**
 * Answers `exists(...)` rules through the store's system reader (one
 * indexed equality query each), caching answers for one pull. Note: it sees
 * the current rows, not those at the time of the change.
 */
export function cachedExistsResolver(reader: EntityReader): ExistsResolver {
  const answers = new Map<string, Promise<boolean>>();
  return (entity: string, conditions: readonly ExistsLookupCondition[]) => {
    const key = `${entity}\u0000${JSON.stringify(conditions.map((c) => [c.field, c.value]))}`;
    let answer = answers.get(key);
    if (answer === undefined) {
      const where = Object.fromEntries(conditions.map((c) => [c.field, c.value]));
      answer = reader.query(entity, { where, limit: 1 }).then(
        (page) => page.rows.length > 0,
        (error: unknown) => {
          // A value no row can hold (not an id, out of an enum) matches nothing.
          if (error instanceof StoreError && error.code === "INVALID_QUERY") return false;
          throw error;
        },
      );
      answers.set(key, answer);
    }
    return answer;
  };
}

/** The manifest's compiled policies and the entities it declares. */
export interface ReadPolicies {
  readonly compiled: CompiledPolicies;
  readonly entities: ReadonlySet<string>;
  /**
   * Entities whose read rules use no `exists(...)`: a change to them is
   * checked synchronously (`viewChangeNow`), with no database lookup.
   */
  readonly lookupFree?: ReadonlySet<string>;
}

/** Who looks at a change, and through which filter (see `viewChange`). */
export interface ChangeViewer {
  readonly policies: ReadPolicies;
  readonly auth: AuthContext;
  readonly resolveExists: ExistsResolver;
  /** A subscription's own filter (its `where`); default: every row. */
  readonly matches?: (row: Row) => boolean;
}

/**
 * What one viewer may see of one logged change. A row is in view when it
 * matches the viewer's filter and its read policy admits the caller: the
 * post-image decides inserts and updates, the pre-image deletes; an update
 * whose pre-image was in view and whose post-image is not becomes a
 * `remove`. Null when the viewer may see nothing of it. The admin token
 * passes every read policy; an entity the manifest no longer declares is
 * skipped.
 */
export async function viewChange(
  viewer: ChangeViewer,
  change: LoggedChange,
): Promise<PulledChange | null> {
  const { policies, auth, resolveExists, matches } = viewer;
  if (!policies.entities.has(change.entity)) return null;
  const inView = async (row: Row | null): Promise<boolean> => {
    if (row === null) return false;
    if (matches !== undefined && !matches(row)) return false;
    if (auth.isAdmin) return true;
    const verdict = await checkAccess(
      policies.compiled,
      { entity: change.entity, action: "read", auth, data: row },
      resolveExists,
    );
    return verdict.allowed;
  };
  const base = { cursor: String(change.cursor), entity: change.entity, rowId: change.id };
  switch (change.op) {
    case "insert":
      return change.row !== null && (await inView(change.row))
        ? { ...base, op: "insert", row: change.row }
        : null;
    case "update":
      if (change.row !== null && (await inView(change.row))) {
        return { ...base, op: "update", row: change.row };
      }
      return (await inView(change.previous)) ? { ...base, op: "remove" } : null;
    case "delete":
      return (await inView(change.previous)) ? { ...base, op: "delete" } : null;
  }
}

/**
 * `viewChange` for an entity whose read rules need no lookup (see
 * `ReadPolicies.lookupFree`), answered synchronously and as the op alone
 * (the row, if any, is the change's): the fan-out path, where a change is
 * checked once per subscriber.
 */
export function viewChangeNow(
  viewer: Omit<ChangeViewer, "resolveExists">,
  change: LoggedChange,
): PulledChange["op"] | null {
  if (!viewer.policies.entities.has(change.entity)) return null;
  switch (change.op) {
    case "insert":
      return inViewNow(viewer, change.entity, change.row) ? "insert" : null;
    case "update":
      if (inViewNow(viewer, change.entity, change.row)) return "update";
      return inViewNow(viewer, change.entity, change.previous) ? "remove" : null;
    case "delete":
      return inViewNow(viewer, change.entity, change.previous) ? "delete" : null;
  }
}

function inViewNow(
  viewer: Omit<ChangeViewer, "resolveExists">,
  entity: string,
  row: Row | null,
): boolean {
  if (row === null) return false;
  if (viewer.matches !== undefined && !viewer.matches(row)) return false;
  if (viewer.auth.isAdmin) return true;
  return evaluateAccess(viewer.policies.compiled, {
    entity,
    action: "read",
    auth: viewer.auth,
    data: row,
  }).allowed;
}

/**
 * What `auth` may see of one logged change, by the entity's read policy
 * (`viewChange` without a filter), as `pull` delivers it.
 */
export function visibleChange(
  policies: ReadPolicies,
  auth: AuthContext,
  change: LoggedChange,
  resolveExists: ExistsResolver,
): Promise<PulledChange | null> {
  return viewChange({ policies, auth, resolveExists }, change);
}
