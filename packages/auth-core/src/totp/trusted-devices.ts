import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { sha256Hex } from "../secrets.js";
import type { AuthTables, TrustedDeviceTable } from "../tables.js";

/** How long a trusted device skips the second factor. */
export const TRUSTED_DEVICE_TTL_MS = 30 * 24 * 60 * 60 * 1000;

const MAX_USER_AGENT = 256;

/** A trusted device as the API shows it (never its token). Times in unix seconds. */
export interface TrustedDevice {
  readonly id: string;
  readonly created_at: number;
  readonly expires_at: number;
  readonly user_agent: string | null;
}

function toDevice(row: TrustedDeviceTable): TrustedDevice {
  return {
    id: row.id,
    created_at: Math.floor(Number(row.created_at) / 1000),
    expires_at: Math.floor(Number(row.expires_at) / 1000),
    user_agent: row.user_agent,
  };
}

/**
 * Trusts the device a sign-in came from for `TRUSTED_DEVICE_TTL_MS`: a new
 * 256-bit token, returned once; the table keeps its SHA-256 as the row id.
 * The user's expired devices are removed on the way.
 */
export async function trustDevice(
  db: Kysely<AuthTables>,
  input: { userId: string; now: number; userAgent?: string | undefined },
): Promise<{ token: string; expiresAt: number }> {
  const token = randomBytes(32).toString("base64url");
  const expiresAt = input.now + TRUSTED_DEVICE_TTL_MS;
  await db
    .deleteFrom("svc_trusted_device")
    .where("user_id", "=", input.userId)
    .where("expires_at", "<=", input.now)
    .execute();
  await db
    .insertInto("svc_trusted_device")
    .values({
      id: sha256Hex(token),
      user_id: input.userId,
      created_at: input.now,
      expires_at: expiresAt,
      user_agent: input.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
    })
    .execute();
  return { token, expiresAt };
}

/** Whether `token` names a live trusted device of `userId` (another user's never counts). */
export async function isTrustedDevice(
  db: Kysely<AuthTables>,
  input: { userId: string; token: string; now: number },
): Promise<boolean> {
  if (input.token === "" || input.token.length > 128) return false;
  const row = await db
    .selectFrom("svc_trusted_device")
    .select(["user_id", "expires_at"])
    .where("id", "=", sha256Hex(input.token))
    .executeTakeFirst();
  return row !== undefined && row.user_id === input.userId && Number(row.expires_at) > input.now;
}

/** The user's live trusted devices, newest first. */
export async function listTrustedDevices(
  db: Kysely<AuthTables>,
  userId: string,
  now: number,
): Promise<TrustedDevice[]> {
  const rows = await db
    .selectFrom("svc_trusted_device")
    .selectAll()
    .where("user_id", "=", userId)
    .where("expires_at", ">", now)
    .orderBy("created_at", "desc")
    .orderBy("id")
    .execute();
  return rows.map(toDevice);
}

/** Deletes one of the user's trusted devices; false when the user has no such device. */
export async function revokeTrustedDevice(
  db: Kysely<AuthTables>,
  userId: string,
  id: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom("svc_trusted_device")
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes every trusted device of a user; resolves with how many there were. */
export async function deleteTrustedDevices(
  db: Kysely<AuthTables>,
  userId: string,
): Promise<number> {
  const result = await db
    .deleteFrom("svc_trusted_device")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
