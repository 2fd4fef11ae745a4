import { join } from "node:path";
import type { ServerConfig } from "./config.js";

/**
 * The SQLite files of the embedded database, each a path or `:memory:`:
 * the application database (`SVC_DB_PATH`, default `<manifest dir>/.svc/data.db`),
 * the job queue (`SVC_JOBS_DB`, default `<database file>.jobs.db`) and the
 * sessions, API keys and codes (`SVC_SESSION_DB`, in memory when unset).
 * The server opens exactly these; `svc backup` and `svc restore` copy them.
 */
export interface SqliteFiles {
  readonly app: string;
  readonly jobs: string;
  readonly sessions: string;
}

/** Where the embedded database's files are, from the parsed configuration. */
export function sqliteFiles(
  config: Pick<ServerConfig, "dbPath" | "jobsDbPath" | "auth">,
  manifestDir: string,
): SqliteFiles {
  const app = config.dbPath ?? join(manifestDir, ".svc", "data.db");
  return {
    app,
    jobs: config.jobsDbPath ?? (app === ":memory:" ? ":memory:" : `${app}.jobs.db`),
    sessions: config.auth.sessionDbPath ?? ":memory:",
  };
}

/** The local uploads directory when none is set (`SVC_FILES_DIR`): `<manifest dir>/.svc/files`. */
export function defaultFilesDir(manifestDir: string): string {
  return join(manifestDir, ".svc", "files");
}

/** The local uploads directory, or undefined when files live in a bucket (`SVC_FILES_PROVIDER=s3`). */
export function localFilesDir(
  config: Pick<ServerConfig, "files">,
  manifestDir: string,
): string | undefined {
  if (config.files.provider !== "local") return undefined;
  return config.files.dir ?? defaultFilesDir(manifestDir);
}
