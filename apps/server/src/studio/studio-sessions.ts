import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { AuthDatabase } from "@svc/auth-core";
import { STUDIO_SESSIONS_TABLE, studioSessionTable } from "./studio-session-table.js";

/** A signed-in studio browser: its CSRF token and when it must sign in again. */
export interface StudioSession {
  /** Sent back in every form (`_csrf`); compared in constant time. */
  readonly csrfToken: string;
  readonly expiresAt: number;
  /**
   * Names the sign-in in audit events: the first 16 characters of the
   * stored digest of its id (the row's key, never the cookie's value).
   */
  readonly ref: string;
}

/** The studio's sign-ins, kept in the database every server of a deployment shares. */
export interface StudioSessions {
  /** Starts a session; resolves with the random id the cookie carries (never the admin token). */
  create(): Promise<{ id: string; session: StudioSession }>;
  /** The live session a cookie value names, or null (unknown, signed out or expired). */
  resolve(id: string | undefined): Promise<StudioSession | null>;
  /** Ends the session a cookie value names. */
  revoke(id: string | undefined): Promise<void>;
}

/** Options of `createStudioSessions`. */
export interface StudioSessionsOptions {
  /** auth-core's database: the studio's table lives beside its sessions (`studioMigrations`). */
  readonly database: AuthDatabase;
  /** Unix ms. Default `Date.now`. */
  readonly now?: () => number;
  /** How long a sign-in lasts, in ms. Default 8 hours. */
  readonly lifetimeMs?: number;
  /** Sessions kept at most; the oldest goes first. Default 1000. */
  readonly capacity?: number;
}

const ID_SHAPE = /^[0-9a-f]{64}$/;
/** Characters of the stored digest a session's `ref` shows. */
const REF_CHARS = 16;

/** The row key: a digest of the id, so the database never holds a usable cookie value. */
function keyOf(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

/**
 * The session's CSRF token, derived from its id: every server computes the
 * same token without storing it, and neither the row's key nor a leaked
 * token gives the id back.
 */
function csrfTokenOf(id: string): string {
  return createHmac("sha256", id).update("svc studio csrf").digest("hex");
}

/**
 * Studio sessions in the database (`studioMigrations`' table): a restart
 * keeps them, every server sharing the database accepts them, and a
 * sign-out on one server is refused by all the others at once (nothing is
 * cached in the process). A studio request costs one primary-key lookup.
 */
export function createStudioSessions(options: StudioSessionsOptions): StudioSessions {
  const { database } = options;
  const now = options.now ?? Date.now;
  const lifetimeMs = options.lifetimeMs ?? 8 * 60 * 60 * 1000;
  const capacity = Math.max(1, options.capacity ?? 1000);
  const table = (): AuthDatabase["db"] => studioSessionTable(database);

  /** Drops expired rows, then the oldest until one more fits under the cap. */
  async function prune(current: number): Promise<void> {
    await table().deleteFrom(STUDIO_SESSIONS_TABLE).where("expires_at", "<=", current).execute();
    // The newest session that would no longer fit: it and every older one go.
    const cut = await table()
      .selectFrom(STUDIO_SESSIONS_TABLE)
      .select(["created_at", "id"])
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(1)
      .offset(capacity - 1)
      .executeTakeFirst();
    if (cut === undefined) return;
    const createdAt = Number(cut.created_at);
    await table()
      .deleteFrom(STUDIO_SESSIONS_TABLE)
      .where((eb) =>
        eb.or([
          eb("created_at", "<", createdAt),
          eb.and([eb("created_at", "=", createdAt), eb("id", "<=", String(cut.id))]),
        ]),
      )
      .execute();
  }

  return {
    async create() {
      const current = now();
      await prune(current);
      const id = randomBytes(32).toString("hex");
      const session: StudioSession = {
        csrfToken: csrfTokenOf(id),
        expiresAt: current + lifetimeMs,
        ref: keyOf(id).slice(0, REF_CHARS),
      };
      await table()
        .insertInto(STUDIO_SESSIONS_TABLE)
        .values({ id: keyOf(id), created_at: current, expires_at: session.expiresAt })
        .execute();
      return { id, session };
    },
    async resolve(id) {
      if (id === undefined || !ID_SHAPE.test(id)) return null;
      const key = keyOf(id);
      const row = await table()
        .selectFrom(STUDIO_SESSIONS_TABLE)
        .select("expires_at")
        .where("id", "=", key)
        .executeTakeFirst();
      if (row === undefined) return null;
      // Postgres returns bigint columns as strings.
      const expiresAt = Number(row.expires_at);
      if (expiresAt <= now()) {
        await table().deleteFrom(STUDIO_SESSIONS_TABLE).where("id", "=", key).execute();
        return null;
      }
      return { csrfToken: csrfTokenOf(id), expiresAt, ref: key.slice(0, REF_CHARS) };
    },
    async revoke(id) {
      if (id === undefined || !ID_SHAPE.test(id)) return;
      await table().deleteFrom(STUDIO_SESSIONS_TABLE).where("id", "=", keyOf(id)).execute();
    },
  };
}

/**
 * Constant-time equality of two secrets: both are hashed first, so neither
 * their contents nor their lengths show in the time taken.
 */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(
    createHash("sha256").update(given).digest(),
    createHash("sha256").update(expected).digest(),
  );
}
