import { dialectFor, type StoreDialect } from "@svc/store";
import { CompiledQuery, type Kysely } from "kysely";
import { newSessionToken, sha256Hex } from "./secrets.js";
import type { AuthTables, SessionsTable } from "./tables.js";

/** A stored session, as auth-core reads it (never the token). */
export interface SessionRecord {
  /** SHA-256 of the token, hex; also the session's public id. */
  readonly id: string;
  readonly userId: string;
  readonly isGuest: boolean;
  /** Unix milliseconds. */
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly userAgent: string | null;
  readonly ip: string | null;
  /** The organization the session selected, or null. */
  readonly activeOrgId: string | null;
}

/** A freshly created session: the only time the token exists outside the client. */
export interface NewSession {
  readonly token: string;
  readonly session: SessionRecord;
}

/** Who created a session, kept for the user's device list. */
export interface ClientInfo {
  readonly ip?: string | undefined;
  readonly userAgent?: string | undefined;
  /** The trusted-device token the client presented (cookie `svc_trusted_device`), if any. */
  readonly trustedDevice?: string | undefined;
}

function toRecord(row: SessionsTable): SessionRecord {
  return {
    id: row.id,
    userId: row.user_id,
    isGuest: row.kind === "guest",
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    userAgent: row.user_agent,
    ip: row.ip,
    activeOrgId: row.active_org_id ?? null,
  };
}

const MAX_USER_AGENT = 256;

/** Inserts a session for `userId` and returns its token once. */
export async function insertSession(
  db: Kysely<AuthTables>,
  input: {
    userId: string;
    isGuest: boolean;
    now: number;
    lifetimeMs: number;
    client?: ClientInfo | undefined;
  },
): Promise<NewSession> {
  const token = newSessionToken();
  const row: SessionsTable = {
    id: sha256Hex(token),
    user_id: input.userId,
    kind: input.isGuest ? "guest" : "session",
    created_at: input.now,
    expires_at: input.now + input.lifetimeMs,
    user_agent: input.client?.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
    ip: input.client?.ip ?? null,
    active_org_id: null,
  };
  await db.insertInto("svc_sessions").values(row).execute();
  return { token, session: toRecord(row) };
}

/**
 * Builds the lookup of the live session a token names (null when unknown,
 * revoked or expired). It runs on every authenticated request, so its SQL
 * is compiled once and only the parameter changes: building and compiling
 * the query per call cost more than the indexed read itself.
 */
export function sessionFinder(
  db: Kysely<AuthTables>,
): (token: string, now: number) => Promise<SessionRecord | null> {
  const compiled = db.selectFrom("svc_sessions").selectAll().where("id", "=", "").compile();
  return async (token, now) => {
    const { rows } = await db.executeQuery<SessionsTable>(
      CompiledQuery.raw(compiled.sql, [sha256Hex(token)]),
    );
    const row = rows[0];
    if (row === undefined || Number(row.expires_at) <= now) return null;
    return toRecord(row);
  };
}

/**
 * Whether the session `id` is still live, read through the transaction
 * `db`. On Postgres the row stays locked (`FOR UPDATE`) until the
 * transaction ends, so a revocation committing meanwhile waits for it and
 * then deletes what it wrote; SQLite runs one write transaction at a time.
 * Whatever a request makes under its session (an API key, a JWT, a TOTP
 * secret) checks this in the transaction that makes it: a request that was
 * in flight when the user's sessions were revoked cannot leave a credential
 * behind.
 */
export async function lockLiveSession(
  db: Kysely<AuthTables>,
  input: { id: string; now: number; dialect: StoreDialect },
): Promise<boolean> {
  const select = db.selectFrom("svc_sessions").select("expires_at").where("id", "=", input.id);
  const row = await dialectFor(input.dialect).lockForUpdate(select).executeTakeFirst();
  return row !== undefined && Number(row.expires_at) > input.now;
}

/** Deletes one session; resolves with whether it existed. */
export async function deleteSession(db: Kysely<AuthTables>, id: string): Promise<boolean> {
  const result = await db.deleteFrom("svc_sessions").where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes every session of a user; resolves with how many there were. */
export async function deleteUserSessions(db: Kysely<AuthTables>, userId: string): Promise<number> {
  const result = await db
    .deleteFrom("svc_sessions")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A user's live sessions, newest first. */
export async function listUserSessions(
  db: Kysely<AuthTables>,
  userId: string,
  now: number,
): Promise<SessionRecord[]> {
  const rows = await db
    .selectFrom("svc_sessions")
    .selectAll()
    .where("user_id", "=", userId)
    .where("expires_at", ">", now)
    .orderBy("created_at", "desc")
    .execute();
  return rows.map(toRecord);
}

/** Removes expired sessions; resolves with how many. */
export async function pruneSessions(db: Kysely<AuthTables>, now: number): Promise<number> {
  const result = await db
    .deleteFrom("svc_sessions")
    .where("expires_at", "<=", now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Sets (or clears, with null) the organization a session acts in. */
export async function setActiveOrg(
  db: Kysely<AuthTables>,
  sessionId: string,
  orgId: string | null,
): Promise<void> {
  await db
    .updateTable("svc_sessions")
    .set({ active_org_id: orgId })
    .where("id", "=", sessionId)
    .execute();
}
