import type { Kysely } from "kysely";
import { AuthError } from "./errors.js";
import { newRowId } from "./secrets.js";
import type { AuditTable, AuthTables } from "./tables.js";

/** The kinds of audit event auth-core writes. */
export const auditKinds = [
  "SignIn",
  "SignUp",
  "GuestSession",
  "SignOut",
  "SessionsRevoke",
  "EmailVerify",
  "ApiKeyCreate",
  "ApiKeyRevoke",
  "JwtMint",
  "OrgSelect",
  "TotpEnable",
  "TotpDisable",
  "TrustedDeviceRevoke",
  "SecondFactor",
  "AccountDelete",
  "AccountLink",
  "AccountClaim",
  "PasswordReset",
  "PasswordChange",
  // Written by an operator tool (svc's admin studio) through `recordOperatorAudit`.
  "StudioSignIn",
  "StudioEdit",
  "StudioFunctionRun",
  "StudioJob",
  "StudioLiveClose",
] as const;

/** See `auditKinds`. */
export type AuditKind = (typeof auditKinds)[number];

/**
 * The kinds an operator tool (svc's admin studio) writes with
 * `Auth.recordOperatorAudit`: a sign-in to the tool, a row inserted,
 * updated or deleted, a function run, a job retried or cancelled, a live
 * connection closed. Their actor is the tool (`user_id` null).
 */
export const operatorAuditKinds = [
  "StudioSignIn",
  "StudioEdit",
  "StudioFunctionRun",
  "StudioJob",
  "StudioLiveClose",
] as const satisfies readonly AuditKind[];

/** See `operatorAuditKinds`. */
export type OperatorAuditKind = (typeof operatorAuditKinds)[number];

/** What an operator tool records: the kind, JSON-ready data (no secret), and the client address. */
export interface OperatorAuditEvent {
  readonly kind: OperatorAuditKind;
  readonly data: Readonly<Record<string, unknown>>;
  readonly ip?: string | undefined;
}

/** One audit event as `GET /api/auth/audit` shows it. */
export interface AuditEvent {
  readonly id: string;
  readonly user_id: string | null;
  readonly kind: string;
  /** ISO 8601 UTC. */
  readonly at: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly ip: string | null;
}

/** Writes one event through `db` (a transaction, when it must commit with the change). */
export async function recordAudit(
  db: Kysely<AuthTables>,
  event: {
    userId: string | null;
    kind: AuditKind;
    at: number;
    data?: Readonly<Record<string, unknown>>;
    ip?: string | undefined;
  },
): Promise<void> {
  await db
    .insertInto("svc_audit")
    .values({
      id: newRowId(),
      user_id: event.userId,
      kind: event.kind,
      at: event.at,
      data: JSON.stringify(event.data ?? {}),
      ip: event.ip ?? null,
    })
    .execute();
}

function toEvent(row: AuditTable): AuditEvent {
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.data);
    if (typeof parsed === "object" && parsed !== null) data = parsed as Record<string, unknown>;
  } catch {
    // A row not written by recordAudit: show it without data.
  }
  return {
    id: row.id,
    user_id: row.user_id,
    kind: row.kind,
    at: new Date(Number(row.at)).toISOString(),
    data,
    ip: row.ip,
  };
}

const CURSOR = /^(\d{1,16})_([0-9a-f]{32})$/;

/**
 * A page of events, newest first. `cursor` is the `next_cursor` of the page
 * before; `limit` 1..200 (default 50). Filters by user and kind when given.
 */
export async function listAudit(
  db: Kysely<AuthTables>,
  query: { userId?: string | undefined; kind?: unknown; limit?: unknown; cursor?: unknown },
): Promise<{ events: AuditEvent[]; next_cursor: string | null }> {
  const limit = query.limit === undefined ? 50 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
    throw new AuthError("INVALID_QUERY", { message: "limit must be an integer from 1 to 200." });
  }
  if (query.kind !== undefined && typeof query.kind !== "string") {
    throw new AuthError("INVALID_QUERY", { message: "kind must be one audit event kind." });
  }
  let select = db.selectFrom("svc_audit").selectAll();
  if (query.userId !== undefined) select = select.where("user_id", "=", query.userId);
  if (typeof query.kind === "string") select = select.where("kind", "=", query.kind);
  if (query.cursor !== undefined) {
    const match = typeof query.cursor === "string" ? CURSOR.exec(query.cursor) : null;
    if (match === null) throw new AuthError("INVALID_QUERY", { message: "The cursor is invalid." });
    const at = Number(match[1]);
    const id = match[2] ?? "";
    select = select.where((eb) =>
      eb.or([eb("at", "<", at), eb.and([eb("at", "=", at), eb("id", "<", id)])]),
    );
  }
  const rows = await select
    .orderBy("at", "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    events: page.map(toEvent),
    next_cursor: rows.length > limit && last !== undefined ? `${Number(last.at)}_${last.id}` : null,
  };
}
