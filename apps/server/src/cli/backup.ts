import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { copyFile, lstat, mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import {
  BACKUP_MANIFEST,
  BackupError,
  type BackupManifest,
  DATABASE_FILES,
  type DatabaseRole,
  digestFile,
  FILES_DIR,
} from "./backup-format.js";
import { copyDatabaseOnline, findIntegrityProblem } from "./sqlite-file.js";

/** What `createBackup` copies: the embedded database's files and the uploads directory. */
export interface BackupSources {
  /** Role to SQLite file path; `:memory:` ones are skipped (`app` must be a file). */
  readonly databases: Readonly<Record<DatabaseRole, string>>;
  /** The local uploads directory; undefined when files live in a bucket. */
  readonly filesDir: string | undefined;
}

/** What `createBackup` wrote, and what it could not include, one line each. */
export interface BackupResult {
  readonly manifest: BackupManifest;
  readonly warnings: readonly string[];
}

/** Where the local blob store streams uploads before renaming them into place. */
const UPLOADS_IN_PROGRESS = ".tmp";

/** Whether `path` exists. */
async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Every finished upload under `dir`, relative, with `/` separators:
 * regular files only (symbolic links are not followed), without the
 * blob store's `.tmp/` of uploads still being received.
 */
async function listUploads(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const dirent of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!dirent.isFile()) continue;
    const path = relative(dir, join(dirent.parentPath, dirent.name)).split(sep).join("/");
    if (path.startsWith(`${UPLOADS_IN_PROGRESS}/`)) continue;
    found.push(path);
  }
  return found.sort();
}

/** Whether `inner` is `outer` or below it. */
function isWithin(inner: string, outer: string): boolean {
  const path = relative(outer, inner);
  return path === "" || (!path.startsWith("..") && !path.startsWith(sep));
}

/**
 * Takes an online backup into `dir`, which must not exist or be empty:
 * each SQLite database through SQLite's backup API (the server may keep
 * running and writing), then the uploads, then `backup.json` with every
 * file's size and SHA-256, last. A new `dir` is written under a hidden
 * name beside it and renamed at the end, so it is either a whole backup or
 * absent; a failure removes whatever was written (a backup cut short by a
 * crash has no `backup.json`, and `svc restore` refuses it).
 *
 * Each database is a consistent snapshot of itself, taken one after the
 * other (a job scheduled during the copy may be in one and not the other).
 * The databases go first: an upload deleted while the files are copied is
 * then missing from the backup (its row answers 404 after a restore),
 * while one added meanwhile is only an extra file.
 */
export async function createBackup(
  sources: BackupSources,
  dir: string,
  now: () => number = Date.now,
): Promise<BackupResult> {
  if (sources.databases.app === ":memory:") {
    throw new BackupError(
      "NOTHING_TO_BACK_UP",
      "the database is in memory (SVC_DB_PATH=:memory:); there is nothing to back up",
    );
  }
  if (!(await exists(sources.databases.app))) {
    throw new BackupError(
      "NOTHING_TO_BACK_UP",
      `the database ${sources.databases.app} does not exist (check SVC_DB_PATH and SVC_MANIFEST)`,
    );
  }
  if (sources.filesDir !== undefined && isWithin(dir, sources.filesDir)) {
    throw new BackupError(
      "BACKUP_DIR_INVALID",
      `${dir} is inside the uploads directory ${sources.filesDir}; put backups elsewhere`,
    );
  }
  const dirExists = await exists(dir);
  if (dirExists && (await readdir(dir)).length > 0) {
    throw new BackupError(
      "BACKUP_DIR_NOT_EMPTY",
      `${dir} is not empty; give a new directory for each backup`,
    );
  }
  // A new directory is written under a hidden name beside it and renamed at
  // the end; an existing empty one (perhaps a mount point) is written in place.
  const staging = dirExists
    ? dir
    : join(dirname(dir), `.${basename(dir)}.partial-${randomBytes(6).toString("hex")}`);
  try {
    await mkdir(staging, { recursive: true });
    const result = await writeBackup(sources, staging, now);
    if (staging !== dir) await rename(staging, dir);
    return result;
  } catch (error) {
    if (staging === dir) {
      for (const name of await readdir(dir).catch(() => [])) {
        await rm(join(dir, name), { recursive: true, force: true });
      }
    } else {
      await rm(staging, { recursive: true, force: true });
    }
    if (error instanceof BackupError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new BackupError("BACKUP_FAILED", `${reason}; no backup was written`, { cause: error });
  }
}

/** Writes the backup's files into the (new, empty) directory `dir`. */
async function writeBackup(
  sources: BackupSources,
  dir: string,
  now: () => number,
): Promise<BackupResult> {
  const createdAt = new Date(now()).toISOString();
  const warnings: string[] = [];
  const databases: Partial<Record<DatabaseRole, string>> = {};
  const paths: string[] = [];
  for (const role of ["app", "jobs", "sessions"] as const) {
    const source = sources.databases[role];
    if (source === ":memory:" || source === "") {
      if (role === "sessions") {
        warnings.push(
          "sessions, API keys and sign-in codes are kept in memory (SVC_SESSION_DB unset) and are not in the backup",
        );
      }
      continue;
    }
    if (!(await exists(source))) continue;
    const target = join(dir, DATABASE_FILES[role]);
    await copyDatabaseOnline(source, target);
    const problem = findIntegrityProblem(target);
    if (problem !== undefined) {
      throw new BackupError(
        "INTEGRITY_CHECK_FAILED",
        `the copy of ${source} fails SQLite's integrity check (${problem}); the database itself may be damaged`,
      );
    }
    databases[role] = DATABASE_FILES[role];
    paths.push(DATABASE_FILES[role]);
  }
  let files: string | null = null;
  if (sources.filesDir === undefined) {
    warnings.push("uploads live in the S3 bucket; back the bucket up with its own tools");
  } else if (await exists(sources.filesDir)) {
    files = FILES_DIR;
    await mkdir(join(dir, FILES_DIR));
    for (const file of await listUploads(sources.filesDir)) {
      const target = join(dir, FILES_DIR, ...file.split("/"));
      await mkdir(dirname(target), { recursive: true });
      try {
        await copyFile(join(sources.filesDir, file), target, constants.COPYFILE_EXCL);
      } catch (error) {
        // Deleted since it was listed.
        if ((error as { code?: unknown }).code === "ENOENT") continue;
        throw error;
      }
      paths.push(`${FILES_DIR}/${file}`);
    }
  }
  const entries = [];
  for (const path of paths) {
    entries.push({ path, ...(await digestFile(join(dir, ...path.split("/")))) });
  }
  const manifest: BackupManifest = {
    format: "svc-backup",
    version: 1,
    created_at: createdAt,
    databases: { app: DATABASE_FILES.app, ...databases },
    files,
    entries,
  };
  await writeFile(join(dir, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, {
    flag: "wx",
  });
  return { manifest, warnings };
}
