import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { copyFile, lstat, mkdir, open, readFile, rename as renamePath, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import {
  BACKUP_MANIFEST,
  BackupError,
  type BackupManifest,
  backupManifestSchema,
  type DatabaseRole,
  digestFile,
  toPlatformPath,
} from "./backup-format.js";
import { findIntegrityProblem, isDatabaseInUse } from "./sqlite-file.js";

/** Where `restoreBackup` puts things: the paths the server would open. */
export interface RestoreTargets {
  /** Role to SQLite file path (`:memory:` when the server keeps that one in memory). */
  readonly databases: Readonly<Record<DatabaseRole, string>>;
  /** The local uploads directory; undefined when files live in a bucket. */
  readonly filesDir: string | undefined;
}

/** Options of `restoreBackup`. */
export interface RestoreOptions {
  /** Replace existing targets (default false: refuse with `TARGET_EXISTS`). */
  readonly force?: boolean;
  /** Renames a path; `fs.rename` by default (tests make it fail). */
  readonly rename?: (from: string, to: string) => Promise<void>;
}

/** What `restoreBackup` did, one line each, for the operator. */
export interface RestoreReport {
  readonly restored: readonly string[];
  readonly skipped: readonly string[];
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Reads and checks a backup made by `svc backup`: `backup.json`, the size
 * and SHA-256 of every file it lists, and SQLite's integrity check on each
 * database. Throws `BackupError` (`INVALID_BACKUP`, `CHECKSUM_MISMATCH`,
 * `INTEGRITY_CHECK_FAILED`); writes nothing.
 */
export async function verifyBackup(dir: string): Promise<BackupManifest> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(join(dir, BACKUP_MANIFEST), "utf8"));
  } catch {
    throw new BackupError(
      "INVALID_BACKUP",
      `${join(dir, BACKUP_MANIFEST)} is missing or not JSON; is ${dir} a complete svc backup?`,
    );
  }
  const parsed = backupManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BackupError(
      "INVALID_BACKUP",
      `${BACKUP_MANIFEST}: ${issue?.path.join(".") ?? ""} ${issue?.message ?? "is invalid"}`,
    );
  }
  const manifest = parsed.data;
  const listed = new Set(manifest.entries.map((entry) => entry.path));
  for (const path of Object.values(manifest.databases)) {
    if (path !== undefined && !listed.has(path)) {
      throw new BackupError("INVALID_BACKUP", `${BACKUP_MANIFEST} lists no checksum for ${path}`);
    }
  }
  for (const entry of manifest.entries) {
    const file = join(dir, toPlatformPath(entry.path));
    const actual = await digestFile(file).catch(() => undefined);
    if (actual === undefined || actual.bytes !== entry.bytes || actual.sha256 !== entry.sha256) {
      throw new BackupError(
        "CHECKSUM_MISMATCH",
        `${entry.path} ${actual === undefined ? "is missing" : "does not match its SHA-256 in backup.json"}; the backup is damaged, nothing was restored`,
      );
    }
  }
  for (const path of Object.values(manifest.databases)) {
    if (path === undefined) continue;
    const problem = findIntegrityProblem(join(dir, toPlatformPath(path)));
    if (problem !== undefined) {
      throw new BackupError(
        "INTEGRITY_CHECK_FAILED",
        `${path} fails SQLite's integrity check (${problem}); nothing was restored`,
      );
    }
  }
  return manifest;
}

/** Flushes a file, or a directory's entries, to disk. */
async function syncPath(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Copies exactly the files `backup.json` lists under the backup's files directory. */
async function copyUploads(source: string, target: string, manifest: BackupManifest) {
  const prefix = `${manifest.files}/`;
  await mkdir(target);
  for (const entry of manifest.entries) {
    if (!entry.path.startsWith(prefix)) continue;
    const inside = toPlatformPath(entry.path.slice(prefix.length));
    await mkdir(dirname(join(target, inside)), { recursive: true });
    await copyFile(join(source, inside), join(target, inside), constants.COPYFILE_EXCL);
  }
}

/** One path to put in place: the staged copy, and what it replaces. */
interface Swap {
  readonly staged: string;
  readonly target: string;
  /** Paths moved aside first (the old file and its `-wal`/`-shm`, or the old directory). */
  readonly replaces: readonly string[];
}

/**
 * Restores a backup made by `svc backup` onto `targets`, all or nothing.
 * First everything is checked, with nothing written: the backup
 * (`verifyBackup`), that no target database is open in a running server
 * (`DATABASE_IN_USE`: stop it first), and, unless `force`, that no target
 * exists (`TARGET_EXISTS`). Then each database and the uploads directory
 * are copied to a temporary name beside their target and flushed to disk.
 * Last, the old files (a database with its `-wal` and `-shm`, which must
 * not be replayed onto the new file) are renamed aside, the copies renamed
 * into place, and the old files deleted. If a rename fails, the ones done
 * are undone (`RESTORE_FAILED`); a failure before that leaves the targets
 * untouched and removes the copies.
 */
export async function restoreBackup(
  dir: string,
  targets: RestoreTargets,
  options: RestoreOptions = {},
): Promise<RestoreReport> {
  const rename = options.rename ?? renamePath;
  const manifest = await verifyBackup(dir);
  const skipped: string[] = [];
  const databases: { source: string; target: string }[] = [];
  for (const role of ["app", "jobs", "sessions"] as const) {
    const inside = manifest.databases[role];
    if (inside === undefined) continue;
    const target = targets.databases[role];
    if (target === ":memory:" || target === "") {
      if (role === "app") {
        throw new BackupError(
          "TARGET_IN_MEMORY",
          "the database is in memory (SVC_DB_PATH=:memory:); set SVC_DB_PATH to restore into a file",
        );
      }
      skipped.push(
        `${inside}: this server keeps the ${role} database in memory (${role === "jobs" ? "SVC_JOBS_DB" : "SVC_SESSION_DB"} unset), not restored`,
      );
      continue;
    }
    databases.push({ source: join(dir, toPlatformPath(inside)), target: resolve(target) });
  }
  const filesSource =
    manifest.files === null ? undefined : join(dir, toPlatformPath(manifest.files));
  if (filesSource !== undefined && targets.filesDir === undefined) {
    skipped.push("files: SVC_FILES_PROVIDER is not local here, the uploads were not restored");
  }
  const filesTarget =
    filesSource === undefined || targets.filesDir === undefined
      ? undefined
      : resolve(targets.filesDir);

  for (const { target } of databases) {
    if ((await exists(target)) && isDatabaseInUse(target)) {
      throw new BackupError(
        "DATABASE_IN_USE",
        `${target} is open in a running server; stop it first, nothing was restored`,
      );
    }
  }
  const candidates = [
    ...databases.flatMap(({ target }) => [target, `${target}-wal`, `${target}-shm`]),
    ...(filesTarget === undefined ? [] : [filesTarget]),
  ];
  const existing: string[] = [];
  for (const path of candidates) if (await exists(path)) existing.push(path);
  if (existing.length > 0 && options.force !== true) {
    throw new BackupError(
      "TARGET_EXISTS",
      `${existing.join(", ")} already exist${existing.length === 1 ? "s" : ""}; pass --force to replace ${existing.length === 1 ? "it" : "them"}`,
    );
  }

  const suffix = randomBytes(6).toString("hex");
  const swaps: Swap[] = [];
  try {
    for (const { source, target } of databases) {
      await mkdir(dirname(target), { recursive: true });
      const staged = `${target}.restore-${suffix}`;
      swaps.push({ staged, target, replaces: [target, `${target}-wal`, `${target}-shm`] });
      await copyFile(source, staged, constants.COPYFILE_EXCL);
      await syncPath(staged);
    }
    if (filesSource !== undefined && filesTarget !== undefined) {
      await mkdir(dirname(filesTarget), { recursive: true });
      const staged = `${filesTarget}.restore-${suffix}`;
      swaps.push({ staged, target: filesTarget, replaces: [filesTarget] });
      await copyUploads(filesSource, staged, manifest);
    }
  } catch (error) {
    for (const { staged } of swaps) await rm(staged, { recursive: true, force: true });
    throw new BackupError(
      "RESTORE_FAILED",
      `copying the backup failed (${reasonOf(error)}); nothing was restored`,
      { cause: error },
    );
  }

  // Each rename done, to undo in reverse order if a later one fails.
  const done: { from: string; to: string }[] = [];
  const aside: string[] = [];
  try {
    for (const swap of swaps) {
      for (const path of swap.replaces) {
        if (!(await exists(path))) continue;
        const moved = `${path}.replaced-${suffix}`;
        await rename(path, moved);
        done.push({ from: path, to: moved });
        aside.push(moved);
      }
      await rename(swap.staged, swap.target);
      done.push({ from: swap.staged, to: swap.target });
    }
  } catch (error) {
    const stuck: string[] = [];
    for (const { from, to } of done.reverse()) {
      await rename(to, from).catch(() => stuck.push(`${to} (was ${from})`));
    }
    for (const { staged } of swaps) await rm(staged, { recursive: true, force: true });
    throw new BackupError(
      "RESTORE_FAILED",
      stuck.length === 0
        ? `putting the backup in place failed (${reasonOf(error)}); the previous files were put back`
        : `putting the backup in place failed (${reasonOf(error)}) and these could not be put back: ${stuck.join(", ")}`,
      { cause: error },
    );
  }
  for (const path of aside) await rm(path, { recursive: true, force: true });
  for (const parent of new Set(swaps.map(({ target }) => dirname(target)))) {
    await syncPath(parent);
  }
  return { restored: swaps.map(({ target }) => target), skipped };
}
