import { dirname, resolve } from "node:path";
import { parseConfig } from "../config.js";
import { localFilesDir, sqliteFiles } from "../storage-paths.js";
import { createBackup } from "./backup.js";
import { BackupError } from "./backup-format.js";
import { type CliCommand, parseCommandLine } from "./cli-command.js";
import { restoreBackup } from "./restore.js";

/** The usage text of `svc backup` and `svc restore`. */
export const BACKUP_USAGE = `Usage: svc backup <dir>
       svc restore <dir> [--force]

backup   copies the embedded database while the server runs (SQLite's online
         backup API): the application database (SVC_DB_PATH), the job queue
         (SVC_JOBS_DB), the sessions (SVC_SESSION_DB, when set) and the
         local uploads (SVC_FILES_DIR), with backup.json listing each file's
         size and SHA-256. <dir> must be new or empty.
restore  checks the backup (checksums, SQLite integrity check), refuses
         while a server has the database open (stop it first), then puts
         every file in place, all or nothing. --force replaces existing
         files.

Both read the server's environment (SVC_MANIFEST, SVC_DB_PATH, ...) through
the server's own configuration parser: run them with the server's variables.
On failure they print "svc: <command>: <CODE>: <reason>" and exit with 1.
With DATABASE_URL the data is in Postgres: use pg_dump and pg_restore.
`;

/** A command line mistake; printed with the usage, exit code 2. */
export class BackupUsageError extends Error {}

/** What to run instead when the data lives in Postgres. */
function postgresBackupAdvice(command: "backup" | "restore"): string {
  return `DATABASE_URL is set: the data lives in Postgres, which svc ${command} does not copy. Use Postgres's own tools, e.g.
  pg_dump --format=custom --no-owner --file=svc-$(date -u +%Y%m%dT%H%M%SZ).dump "$DATABASE_URL"
  pg_restore --clean --if-exists --no-owner --single-transaction --dbname="$DATABASE_URL" svc-<time>.dump
(or your provider's snapshots). Copy the uploads directory (SVC_FILES_DIR) yourself when SVC_FILES_PROVIDER is local, e.g. rsync -a.`;
}

/**
 * `svc backup <dir>` and `svc restore <dir> [--force]`. Returns the exit
 * code: 0 done, 1 refused or failed (`svc: <command>: <CODE>: <reason>` on
 * stderr), 2 usage. Throws `ConfigError` for an invalid environment and
 * `BackupUsageError`.
 */
export const runBackupCommand: CliCommand = async (argv, io, env) => {
  const command = argv[0];
  if (command !== "backup" && command !== "restore") {
    throw new BackupUsageError("expected svc backup or svc restore");
  }
  const { values, positionals } = parseCommandLine(argv.slice(1), {
    force: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  });
  if (values.help) {
    io.stdout(BACKUP_USAGE);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] === undefined) {
    throw new BackupUsageError(`svc ${command} takes one directory`);
  }
  if (command === "backup" && values.force) {
    throw new BackupUsageError("--force is an option of svc restore");
  }
  const dir = resolve(positionals[0]);
  const config = parseConfig(env);
  try {
    if (config.databaseURL !== undefined) {
      throw new BackupError("POSTGRES_BACKUP", postgresBackupAdvice(command));
    }
    const manifestDir = dirname(resolve(config.manifestPath));
    const paths = {
      databases: sqliteFiles(config, manifestDir),
      filesDir: localFilesDir(config, manifestDir),
    };
    if (command === "backup") {
      const { manifest, warnings } = await createBackup(paths, dir);
      for (const line of warnings) io.stderr(`svc: warning: ${line}\n`);
      const names = Object.keys(manifest.databases);
      const bytes = manifest.entries.reduce((sum, entry) => sum + entry.bytes, 0);
      const uploads = manifest.entries.length - names.length;
      io.stdout(
        `svc: backed up the ${names.join(", ")} database${names.length === 1 ? "" : "s"}${manifest.files === null ? "" : ` and ${uploads} upload${uploads === 1 ? "" : "s"}`} to ${dir} (${bytes} bytes)\n`,
      );
    } else {
      const report = await restoreBackup(dir, paths, { force: values.force });
      for (const line of report.skipped) io.stderr(`svc: warning: ${line}\n`);
      io.stdout(`svc: restored ${report.restored.join(", ")} from ${dir}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof BackupError) {
      io.stderr(`svc: ${command}: ${error.code}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
};
