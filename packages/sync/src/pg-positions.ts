import { COMMIT_WITH_THIS, type RecordOptions } from "@svc/store";
import { CompiledQuery, type Kysely, sql } from "kysely";
import { SyncError } from "./errors.js";
import { CHANGES_TABLE, type ChangesTable, type SyncTables } from "./tables.js";

// The change log's cursors on Postgres, without a lock on the write path.
//
// A sequence number is taken when a row is inserted, but transactions commit
// in another order, so a reader that saw entry 8 could miss an entry 7 that
// commits later. Instead each entry's position is its transaction's id
// times 2^20 plus its place in the transaction, and readers only read below
// the visibility horizon: `pg_snapshot_xmin(pg_current_snapshot())`, the
// oldest transaction id still running. Every transaction below it has ended,
// so the entries below it are final; every transaction that may still write
// has an id at or above it, so its entries will sort after everything read.
// Readers therefore agree on one order, never skip an entry and never see
// one twice, and writers take no lock and make no extra round trip.

/** Entries one transaction may log: the low 20 bits of a position. */
export const ENTRIES_PER_TRANSACTION = 2 ** 20;

/** Positions stay exact JavaScript numbers while transaction ids stay below 2^33. */
const HORIZON = sql<string>`(pg_snapshot_xmin(pg_current_snapshot())::text::bigint * ${sql.lit(ENTRIES_PER_TRANSACTION)})`;

/** A change row without its key and position, as `record` builds it. */
export type PositionedRow = Omit<ChangesTable, "seq" | "pos">;

const COLUMNS = ["entity", "op", "row_id", "row", "previous", "created_at"] as const;

// The INSERT's text by row count (bound values only after the first).
const insertText = new Map<number, string>();

function insertSQL(rows: number): string {
  let text = insertText.get(rows);
  if (text !== undefined) return text;
  const width = COLUMNS.length + 1;
  const values: string[] = [];
  for (let row = 0; row < rows; row++) {
    const base = row * width;
    const params = COLUMNS.map((_column, index) => `$${base + index + 1}`);
    values.push(
      `(${params.join(", ")}, pg_current_xact_id()::text::bigint * ${ENTRIES_PER_TRANSACTION} + $${base + width})`,
    );
  }
  text = `insert into "${CHANGES_TABLE}" (${[...COLUMNS, "pos"].map((c) => `"${c}"`).join(", ")}) values ${values.join(", ")} returning "pos"`;
  insertText.set(rows, text);
  return text;
}

// How many entries each open transaction has logged so far (by its handle),
// so a second `record` in one transaction continues the numbering.
const placesUsed = new WeakMap<object, number>();

/**
 * Inserts `rows` in the caller's transaction and returns their positions,
 * in order. Throws `SyncError` `INTERNAL_ERROR` past 2^20 entries in one
 * transaction (far beyond a few-hundred-row batch).
 */
export async function insertPositioned(
  trx: Kysely<SyncTables>,
  rows: readonly PositionedRow[],
  chunk: number,
  options: RecordOptions = {},
): Promise<number[]> {
  const first = placesUsed.get(trx) ?? 0;
  if (first + rows.length > ENTRIES_PER_TRANSACTION) {
    throw new SyncError("INTERNAL_ERROR", {
      message: `One transaction may log at most ${ENTRIES_PER_TRANSACTION} changes.`,
    });
  }
  placesUsed.set(trx, first + rows.length);
  const positions: number[] = [];
  for (let start = 0; start < rows.length; start += chunk) {
    const part = rows.slice(start, start + chunk);
    const parameters: unknown[] = [];
    part.forEach((row, index) => {
      for (const column of COLUMNS) parameters.push(row[column]);
      parameters.push(first + start + index);
    });
    // The last chunk of the transaction's last call travels with its commit.
    const last = options.last === true && start + chunk >= rows.length;
    const text = insertSQL(part.length);
    const result = await trx.executeQuery<{ pos: number | string }>(
      CompiledQuery.raw(last ? `${COMMIT_WITH_THIS}${text}` : text, parameters),
    );
    positions.push(...result.rows.map((row) => Number(row.pos)).sort((a, b) => a - b));
  }
  return positions;
}

/** A stored row as read back (the position as the cursor). */
export type StoredRow = ChangesTable & { seq: number | string; pos: number | string };

/**
 * How long a read waits for older transactions to end, so it reflects every
 * earlier commit (a client reads its own writes). Only a transaction held
 * open that long anywhere in the cluster makes a read wait at all.
 */
export const SETTLE_WAIT_MS = 5000;

/**
 * Waits (up to `maxWaitMs`) until the horizon passes every entry committed
 * before the call: a read after that reflects each of them, so a client
 * that wrote and then pulls finds its write although a transaction that
 * began earlier is still running. Usually no wait at all: one query.
 * Resolves with how long it waited for the horizon in milliseconds (0 when
 * the first query found nothing held back; the metrics' horizon wait).
 */
export async function awaitHorizon(db: Kysely<SyncTables>, maxWaitMs: number): Promise<number> {
  const started = Date.now();
  const first = await sql<{ top: number | string | null; horizon: number | string }>`
    select (select max(pos) from ${sql.table(CHANGES_TABLE)}) as top, ${HORIZON} as horizon`.execute(
    db,
  );
  const top = first.rows[0]?.top;
  if (top === null || top === undefined || Number(top) < Number(first.rows[0]?.horizon)) return 0;
  for (let delay = 2; Date.now() - started < maxWaitMs; delay = Math.min(50, delay * 2)) {
    await new Promise((resolve) => setTimeout(resolve, delay));
    const next = await sql<{ horizon: number | string }>`select ${HORIZON} as horizon`.execute(db);
    if (Number(top) < Number(next.rows[0]?.horizon)) break;
  }
  return Date.now() - started;
}

/**
 * How many log rows lie after `after` up to `upTo` (committed or not yet
 * readable), counting at most `cap`: one range scan of the position index,
 * for the feed's pending-entries metric.
 */
export async function countPositioned(
  db: Kysely<SyncTables>,
  range: { readonly after: number; readonly upTo: number; readonly cap: number },
): Promise<number> {
  const result = await sql<{ pending: number | string }>`
    select count(*) as pending from (
      select 1 from ${sql.table(CHANGES_TABLE)}
      where pos > ${range.after} and pos <= ${range.upTo} limit ${range.cap}
    ) as pending`.execute(db);
  return Number(result.rows[0]?.pending ?? 0);
}

/** The newest committed position (0 while the log is empty), above the horizon or not. */
export async function committedTop(db: Kysely<SyncTables>): Promise<number> {
  const result = await sql<{ top: number | string | null }>`
    select max(pos) as top from ${sql.table(CHANGES_TABLE)}`.execute(db);
  const top = result.rows[0]?.top;
  return top === null || top === undefined ? 0 : Number(top);
}

/** Up to `limit` entries after `since` below the horizon, floor markers included, in cursor order. */
export async function readPositioned(
  db: Kysely<SyncTables>,
  since: number,
  limit: number,
): Promise<StoredRow[]> {
  const result = await sql<StoredRow>`
    select * from ${sql.table(CHANGES_TABLE)}
    where pos > ${since} and pos < ${HORIZON}
    order by pos limit ${limit}`.execute(db);
  return result.rows;
}

/**
 * Both ends of the log, as `LogBounds` promises them: a cursor from
 * `oldest - 1` through `latest` resumes with nothing missing. `latest` is
 * the newest position below the horizon (or `oldest - 1` while every entry
 * is above it; 0 while the log is empty).
 */
export async function positionBounds(
  db: Kysely<SyncTables>,
): Promise<{ oldest: number | null; latest: number }> {
  const result = await sql<{
    first: number | string | null;
    first_op: string | null;
    latest: number | string | null;
  }>`
    select (select pos from ${sql.table(CHANGES_TABLE)} order by pos limit 1) as first,
           (select op from ${sql.table(CHANGES_TABLE)} order by pos limit 1) as first_op,
           (select max(pos) from ${sql.table(CHANGES_TABLE)} where pos < ${HORIZON}) as latest`.execute(
    db,
  );
  const row = result.rows[0];
  if (row?.first === null || row?.first === undefined) return { oldest: null, latest: 0 };
  // Positions have gaps, so "oldest" is where resuming stops being safe: past
  // a floor marker (entries up to it were pruned), at a reset marker (every
  // earlier cursor must start over), else 1: nothing was ever removed.
  const first = Number(row.first);
  const oldest = row.first_op === "floor" ? first + 1 : row.first_op === "reset" ? first : 1;
  const latest = row.latest === null ? oldest - 1 : Number(row.latest);
  return { oldest, latest };
}

/**
 * Deletes entries past retention, only below the horizon and never the
 * newest: the prefix up to a cut position goes, and the entry at the cut
 * becomes a floor marker, so a reader whose cursor is below it learns that
 * entries after its cursor were pruned. Returns how many entries went.
 */
export async function prunePositioned(
  db: Kysely<SyncTables>,
  retention: { readonly maxEntries: number; readonly youngerThan: number },
): Promise<number> {
  const table = sql.table(CHANGES_TABLE);
  const cut = await sql<{ cut: number | string | null }>`
    with bounds as (
      select (select max(pos) from ${table} where pos < ${HORIZON}) as latest,
             (select max(seq) from ${table}) as top
    ),
    by_count as (
      select max(pos) as pos from ${table}, bounds
      where seq <= bounds.top - ${retention.maxEntries} and pos < bounds.latest
    ),
    young as (
      select pos from ${table} where created_at >= ${retention.youngerThan} order by pos limit 1
    ),
    by_age as (
      select max(pos) as pos from ${table}, bounds
      where pos < bounds.latest and pos < coalesce((select pos from young), bounds.latest)
    )
    select greatest((select pos from by_count), (select pos from by_age)) as cut`.execute(db);
  const position = cut.rows[0]?.cut;
  if (position === null || position === undefined) return 0;
  return db.transaction().execute(async (trx) => {
    const deleted = await trx
      .deleteFrom(CHANGES_TABLE)
      .where("pos", "<", position)
      .where("op", "<>", "floor")
      .executeTakeFirst();
    // Older floor markers are superseded by the new one.
    await trx.deleteFrom(CHANGES_TABLE).where("pos", "<", position).execute();
    const marked = await trx
      .updateTable(CHANGES_TABLE)
      .set({ op: "floor", entity: "", row_id: "", row: null, previous: null })
      .where("pos", "=", position)
      .where("op", "<>", "floor")
      .executeTakeFirst();
    return Number(deleted.numDeletedRows) + Number(marked.numUpdatedRows);
  });
}
