import { ownerField } from "@svc/schema";
import type { Row } from "@svc/store";
import type { ApiKeyRecord, ApiKeys } from "../api-keys.js";
import { type AuditEvent, listAudit } from "../audit.js";
import { type AuthRuntime, accountTablesOf, tablesOf } from "../auth-runtime.js";
import { AuthError } from "../errors.js";

/** What `GET /api/admin/users/<id>/export` answers: everything svc holds about one user, no secrets. */
export interface UserExport {
  readonly user_id: string;
  readonly exported_at: string;
  readonly user: Row | null;
  readonly sessions: readonly {
    id: string;
    guest: boolean;
    created_at: number;
    expires_at: number;
    user_agent: string | null;
    ip: string | null;
  }[];
  readonly api_keys: readonly ApiKeyRecord[];
  readonly linked_accounts: readonly {
    provider: string;
    provider_user_id: string;
    email: string | null;
    created_at: number;
  }[];
  readonly audit: readonly AuditEvent[];
  /** Every row of every entity with an owner field that this user owns, by entity. */
  readonly entities: Readonly<Record<string, readonly Row[]>>;
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Collects one user's data for the admin export (metadata of credentials, never a secret or hash). */
export async function exportUser(
  runtime: AuthRuntime,
  apiKeys: ApiKeys,
  userId: string,
): Promise<UserExport> {
  if (!ID.test(userId)) throw new AuthError("NOT_FOUND", { message: "No such user." });
  const reader = runtime.store.systemReader();
  const user = runtime.users.exists() ? await reader.get("User", userId).catch(() => null) : null;
  const sessions = await tablesOf(runtime)
    .selectFrom("svc_sessions")
    .select(["id", "kind", "created_at", "expires_at", "user_agent", "ip"])
    .where("user_id", "=", userId)
    .orderBy("created_at", "desc")
    .execute();
  const links = await accountTablesOf(runtime)
    .selectFrom("svc_linked_accounts")
    .select(["provider", "provider_user_id", "email", "created_at"])
    .where("user_id", "=", userId)
    .execute();
  const audit: AuditEvent[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await listAudit(accountTablesOf(runtime), { userId, limit: 200, cursor });
    audit.push(...page.events);
    if (page.next_cursor === null) break;
    cursor = page.next_cursor;
  }
  const entities: Record<string, Row[]> = {};
  for (const entity of runtime.store.manifest.entities) {
    const owner = ownerField(entity);
    if (owner === undefined) continue;
    const rows: Row[] = [];
    for (let cursor: string | undefined; ; ) {
      const page = await reader.query(entity.name, {
        where: { [owner.name]: userId },
        limit: 1000,
        ...(cursor !== undefined && { cursor }),
      });
      rows.push(...page.rows);
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    entities[entity.name] = rows;
  }
  if (user === null && sessions.length === 0 && audit.length === 0) {
    throw new AuthError("NOT_FOUND", { message: "No such user." });
  }
  return {
    user_id: userId,
    exported_at: new Date(runtime.now()).toISOString(),
    user,
    sessions: sessions.map((session) => ({
      id: session.id,
      guest: session.kind === "guest",
      created_at: Math.floor(Number(session.created_at) / 1000),
      expires_at: Math.floor(Number(session.expires_at) / 1000),
      user_agent: session.user_agent,
      ip: session.ip,
    })),
    api_keys: await apiKeys.list(userId),
    linked_accounts: links.map((link) => ({ ...link, created_at: Number(link.created_at) })),
    audit,
    entities,
  };
}
