import type { AuthDatabase } from "@svc/auth-core";
import { dialectFor } from "@svc/store";
import { z } from "zod";
import { StudioError } from "./studio-errors.js";

// auth-core lists sessions and API keys per caller only; the studio needs
// everyone's, so it reads the two tables itself, selecting only the metadata
// columns its row schemas name: never `secret_hash`, and a session's id is the
// SHA-256 of its token (the public id `GET /api/auth/sessions` shows too).
// It also counts those rows and the audit events for its totals.

/** One session as the studio lists it (times unix ms). */
export interface SessionMetadata {
  readonly id: string;
  readonly userId: string;
  readonly kind: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly userAgent: string | null;
  readonly ip: string | null;
}

/** One API key as the studio lists it (times unix seconds, as auth-core keeps them). */
export interface ApiKeyMetadata {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  readonly prefix: string;
  readonly scopes: string | null;
  readonly expiresAt: number | null;
  readonly lastUsedAt: number | null;
  readonly createdAt: number;
}

/** A page of metadata, newest first. */
export interface MetadataPage<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}

const PAGE_SIZE = 50;
const CURSOR = /^(\d{1,16})_([A-Za-z0-9_.-]{1,128})$/;
// Postgres returns bigint columns as strings.
const time = z.coerce.number();

const sessionRow = z.object({
  id: z.string(),
  user_id: z.string(),
  kind: z.string(),
  created_at: time,
  expires_at: time,
  user_agent: z.string().nullable(),
  ip: z.string().nullable(),
});

const apiKeyRow = z.object({
  id: z.string(),
  user_id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.string().nullable(),
  expires_at: time.nullable(),
  last_used_at: time.nullable(),
  created_at: time,
});

/** The session-store tables' handle: on SQLite they live in an attached database. */
function sessionStore(database: AuthDatabase): AuthDatabase["db"] {
  return dialectFor(database.dialect).withAttachedSchema(database.db, database.schema);
}

function decodeCursor(cursor: string | undefined): { at: number; id: string } | undefined {
  if (cursor === undefined) return undefined;
  const match = CURSOR.exec(cursor);
  if (match === null) throw new StudioError("INVALID_FORM", "The cursor is invalid.");
  return { at: Number(match[1]), id: match[2] ?? "" };
}

/** Which page to list: everyone's rows or one user's, after `cursor` when given. */
export interface MetadataQuery {
  readonly userId?: string | undefined;
  readonly cursor?: string | undefined;
}

/**
 * Keyset pages over (created_at, id), newest first, optionally one user's:
 * the columns `row` names (and no other), each row turned into its `item`.
 */
async function pageOf<TRow extends { id: string; created_at: number }, TItem>(
  database: AuthDatabase,
  query: MetadataQuery,
  input: {
    readonly table: string;
    readonly row: z.ZodObject & z.ZodType<TRow>;
    readonly item: (row: TRow) => TItem;
  },
): Promise<MetadataPage<TItem>> {
  const after = decodeCursor(query.cursor);
  let select = sessionStore(database).selectFrom(input.table).select(Object.keys(input.row.shape));
  if (query.userId !== undefined) select = select.where("user_id", "=", query.userId);
  if (after !== undefined) {
    select = select.where((eb) =>
      eb.or([
        eb("created_at", "<", after.at),
        eb.and([eb("created_at", "=", after.at), eb("id", "<", after.id)]),
      ]),
    );
  }
  const raw = await select
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(PAGE_SIZE + 1)
    .execute();
  const rows = raw.slice(0, PAGE_SIZE).map((row) => input.row.parse(row));
  const last = rows.at(-1);
  return {
    items: rows.map(input.item),
    nextCursor:
      raw.length > PAGE_SIZE && last !== undefined ? `${last.created_at}_${last.id}` : null,
  };
}

/** Sessions, newest first: metadata only (no token exists in the table; the id is its digest). */
export function listSessionMetadata(
  database: AuthDatabase,
  query: MetadataQuery,
): Promise<MetadataPage<SessionMetadata>> {
  return pageOf(database, query, {
    table: "svc_sessions",
    row: sessionRow,
    item: (row) => ({
      id: row.id,
      userId: row.user_id,
      kind: row.kind,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      userAgent: row.user_agent,
      ip: row.ip,
    }),
  });
}

/** API keys, newest first: metadata only, never the key or its hash. */
export function listApiKeyMetadata(
  database: AuthDatabase,
  query: MetadataQuery,
): Promise<MetadataPage<ApiKeyMetadata>> {
  return pageOf(database, query, {
    table: "svc_api_keys",
    row: apiKeyRow,
    item: (row) => ({
      id: row.id,
      userId: row.user_id,
      name: row.name,
      prefix: row.prefix,
      scopes: row.scopes,
      expiresAt: row.expires_at,
      lastUsedAt: row.last_used_at,
      createdAt: row.created_at,
    }),
  });
}

/** Rows counted at most for a total. */
const COUNT_CAP = 100_000;

/**
 * How many sessions, API keys or audit events there are (of one user,
 * of one audit kind), counting at most 100,000: a subquery limits the
 * rows read.
 */
export async function countAuthRows(
  database: AuthDatabase,
  input: {
    readonly table: "svc_sessions" | "svc_api_keys" | "svc_audit";
    readonly userId?: string | undefined;
    readonly kind?: string | undefined;
  },
): Promise<{ count: number; cap: number }> {
  // The audit log is account data: always in the application database.
  const db = input.table === "svc_audit" ? database.db : sessionStore(database);
  let inner = db.selectFrom(input.table).select("id");
  if (input.userId !== undefined) inner = inner.where("user_id", "=", input.userId);
  if (input.kind !== undefined) inner = inner.where("kind", "=", input.kind);
  const row = await db
    .selectFrom(inner.limit(COUNT_CAP).as("counted"))
    .select((eb) => eb.fn.countAll<number | string | bigint>().as("count"))
    .executeTakeFirst();
  // Postgres answers count(*) as a bigint string.
  return { count: Number(row?.count ?? 0), cap: COUNT_CAP };
}
