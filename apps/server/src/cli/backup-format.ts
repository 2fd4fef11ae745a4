import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { isAbsolute, normalize, sep } from "node:path";
import { z } from "zod";

/** The file in a backup directory that lists what it holds. */
export const BACKUP_MANIFEST = "backup.json";

/** Where each SQLite database goes inside a backup directory. */
export const DATABASE_FILES = {
  app: "data.db",
  jobs: "jobs.db",
  sessions: "sessions.db",
} as const;

/** Where the local uploads directory goes inside a backup directory. */
export const FILES_DIR = "files";

/** Which database a copy is: the application's, the job queue's or the sessions'. */
export type DatabaseRole = keyof typeof DATABASE_FILES;

/**
 * The failures of `svc backup` and `svc restore`, by stable code, with what
 * each means. The command prints `svc: <command>: <CODE>: <message>` and
 * exits with status 1.
 */
export const BACKUP_ERROR_CODES = {
  POSTGRES_BACKUP: "DATABASE_URL is set: the data is in Postgres; use pg_dump and pg_restore",
  NOTHING_TO_BACK_UP: "the application database is in memory or does not exist",
  BACKUP_DIR_NOT_EMPTY: "the backup directory exists and is not empty",
  BACKUP_DIR_INVALID: "the backup directory is inside the uploads directory it would copy",
  BACKUP_FAILED: "reading the data or writing the backup failed; no backup was left behind",
  INVALID_BACKUP: "backup.json is missing, not JSON or not an svc backup",
  CHECKSUM_MISMATCH: "a file of the backup is missing or differs from its SHA-256",
  INTEGRITY_CHECK_FAILED: "a database of the backup fails SQLite's integrity check",
  DATABASE_IN_USE: "a server has the target database open",
  TARGET_EXISTS: "a target file or directory exists and --force was not given",
  TARGET_IN_MEMORY: "SVC_DB_PATH is :memory:, so there is no file to restore into",
  RESTORE_FAILED: "putting the files in place failed; the previous state was put back",
} as const;

/** A stable code of `BackupError`. */
export type BackupErrorCode = keyof typeof BACKUP_ERROR_CODES;

/** A backup or restore refused or failed; the message is written for the operator. */
export class BackupError extends Error {
  override readonly name = "BackupError";
  constructor(
    readonly code: BackupErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

// A path inside the backup directory: relative, forward slashes, no `..`,
// so a doctored backup.json cannot make restore read or write elsewhere.
const innerPath = z
  .string()
  .min(1)
  .max(4096)
  .refine(
    (path) =>
      !isAbsolute(path) &&
      !path.includes("\\") &&
      !path.includes("\0") &&
      path.split("/").every((part) => part !== "" && part !== "." && part !== ".."),
    "must be a relative path inside the backup",
  );

const entry = z.strictObject({
  path: innerPath,
  bytes: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

/** The `backup.json` of a backup directory. */
export const backupManifestSchema = z.strictObject({
  format: z.literal("svc-backup"),
  version: z.literal(1),
  /** When the backup was taken, ISO 8601 UTC. */
  created_at: z.iso.datetime(),
  /** The databases copied, role to path inside the backup. */
  databases: z.strictObject({
    app: innerPath,
    jobs: innerPath.optional(),
    sessions: innerPath.optional(),
  }),
  /** The uploads directory inside the backup; null when files live in a bucket or none exist. */
  files: innerPath.nullable(),
  /** Every file of the backup with its size and SHA-256. */
  entries: z.array(entry),
});

/** A parsed `backup.json`. */
export type BackupManifest = z.infer<typeof backupManifestSchema>;

/** One file of a backup. */
export type BackupEntry = z.infer<typeof entry>;

/** Size and SHA-256 of a file, streamed. */
export async function digestFile(path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest("hex") };
}

/** A path inside the backup in the platform's separators, for joining. */
export function toPlatformPath(path: string): string {
  return normalize(path.split("/").join(sep));
}
