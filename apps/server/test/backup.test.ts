import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { rename } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  postgresTarget,
  postgresTestDatabase,
  type TestDatabaseTarget,
} from "@svc/tooling/databases";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BACKUP_ERROR_CODES, type BackupManifest } from "../src/cli/backup-format.js";
import { restoreBackup } from "../src/cli/restore.js";
import { readJSON, registerPassword, request } from "./auth-fixtures.js";
import { ADMIN_TOKEN, startTestServer, TODO_MANIFEST, tempDir } from "./fixtures.js";
import { SPAWN_BASE_ENV, spawnedPerTest } from "./process.js";
import { runSvc } from "./svc-cli.js";

const start = spawnedPerTest();

/** The server's environment with every embedded file under `root`. */
function envIn(root: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...SPAWN_BASE_ENV,
    SVC_MANIFEST: TODO_MANIFEST,
    SVC_DB_PATH: join(root, "data.db"),
    SVC_SESSION_DB: join(root, "sessions.db"),
    SVC_FILES_DIR: join(root, "files"),
    ...extra,
  };
}

/** Runs `svc <argv>` in process with `env`. */
const svc = (env: Record<string, string>, ...argv: string[]) => runSvc(argv, env);

/** Every row id of `entity`, read page by page with the admin token. */
async function rowIds(url: string, entity: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | null = null;
  do {
    const response: Response = await fetch(
      `${url}/api/entities/${entity}?limit=1000${cursor === null ? "" : `&cursor=${cursor}`}`,
      { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
    );
    expect(response.status).toBe(200);
    for (const row of (await response.json()) as { id: string }[]) ids.add(row.id);
    cursor = response.headers.get("x-next-cursor");
  } while (cursor !== null);
  return ids;
}

/** The ids in a table of an SQLite file, read directly. */
function idsInFile(path: string, table: string): Set<string> {
  const database = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const rows = database.prepare(`select id from "${table}"`).all() as { id: string }[];
    return new Set(rows.map((row) => row.id));
  } finally {
    database.close();
  }
}

/** The bytes a backup's `backup.json` lists in all. */
function bytesOf(backup: string): number {
  const manifest = JSON.parse(readFileSync(join(backup, "backup.json"), "utf8")) as BackupManifest;
  return manifest.entries.reduce((sum, entry) => sum + entry.bytes, 0);
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Every path under `dir`, relative, sorted (empty when `dir` is absent). */
function listTree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).map(String).sort();
}

/**
 * Keeps `writers` clients creating todos as `token` until stopped; `acked`
 * holds the ids of the acknowledged ones, in order.
 */
function startWriting(url: string, token: string, writers = 4) {
  const acked: string[] = [];
  const waiting: { count: number; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let stopped = false;
  let failure: unknown;
  const loop = async (writer: number): Promise<void> => {
    for (let i = 0; !stopped; i += 1) {
      const response = await request({ url }, "POST", "/api/fn/createTodo", {
        token,
        body: { title: `todo ${writer}.${i}` },
      });
      if (response.status !== 200) {
        throw new Error(`createTodo answered ${response.status}: ${await response.text()}`);
      }
      acked.push(((await response.json()) as { id: string }).id);
      for (const wait of waiting.filter((candidate) => acked.length >= candidate.count)) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve();
      }
    }
  };
  const done = Promise.all(
    Array.from({ length: writers }, (_, writer) =>
      loop(writer).catch((error: unknown) => {
        stopped = true;
        failure ??= error;
        for (const wait of waiting.splice(0)) wait.reject(error);
      }),
    ),
  );
  return {
    acked,
    writers,
    /** Resolves once `count` writes were acknowledged; rejects when a write failed. */
    until: (count: number) =>
      failure !== undefined
        ? Promise.reject(failure)
        : acked.length >= count
          ? Promise.resolve()
          : new Promise<void>((resolveWait, reject) =>
              waiting.push({ count, resolve: resolveWait, reject }),
            ),
    /** Stops the writers; rejects when a write failed. */
    stop: async () => {
      stopped = true;
      await done;
      if (failure !== undefined) throw failure;
    },
  };
}

// Each test boots one or two servers; a busy machine makes that slow.
describe("svc backup and svc restore", { timeout: 120_000 }, () => {
  it("backs up a server while it writes; a server booted on the restored copy has the rows, sessions, jobs database and uploads", async () => {
    using source = tempDir();
    using target = tempDir();
    const backupDir = join(source.path, "backups", "one");
    const env = envIn(source.path);
    const first = start(env);
    const url = await first.ready;
    const user = await registerPassword({ url }, "backup@example.com");
    // A finished upload, and one still being received (never in a backup).
    mkdirSync(join(source.path, "files", "ab"), { recursive: true });
    writeFileSync(join(source.path, "files", "ab", "abcdef"), "uploaded bytes");
    mkdirSync(join(source.path, "files", ".tmp"), { recursive: true });
    writeFileSync(join(source.path, "files", ".tmp", "partial"), "half");

    const writing = startWriting(url, user.token);
    await writing.until(40);
    const ackedBefore = [...writing.acked];
    const backup = await svc(env, "backup", backupDir);
    const ackedAfter = writing.acked.length;
    // The server keeps taking writes after the backup.
    await writing.until(ackedAfter + 10);
    await writing.stop();

    expect(backup.err).toBe("");
    expect(backup.code).toBe(0);
    expect(backup.out).toBe(
      `svc: backed up the app, jobs, sessions databases and 1 upload to ${backupDir} (${bytesOf(backupDir)} bytes)\n`,
    );
    const manifest = JSON.parse(
      readFileSync(join(backupDir, "backup.json"), "utf8"),
    ) as BackupManifest;
    expect(manifest.databases).toEqual({
      app: "data.db",
      jobs: "jobs.db",
      sessions: "sessions.db",
    });
    expect(manifest.entries.map((entry) => entry.path)).toEqual([
      "data.db",
      "jobs.db",
      "sessions.db",
      "files/ab/abcdef",
    ]);
    // One consistent snapshot: every write acknowledged before the backup
    // began, and nothing beyond what was written by the time it ended.
    const inBackup = idsInFile(join(backupDir, "data.db"), "Todo");
    expect(ackedBefore.filter((id) => !inBackup.has(id))).toEqual([]);
    expect(inBackup.size).toBeGreaterThanOrEqual(ackedBefore.length);
    expect(inBackup.size).toBeLessThanOrEqual(ackedAfter + writing.writers);
    expect(writing.acked.length).toBeGreaterThan(inBackup.size);

    const targetEnv = envIn(target.path);
    const restore = await svc(targetEnv, "restore", backupDir);
    expect(restore.err).toBe("");
    expect(restore).toMatchObject({ code: 0 });
    expect(restore.out).toBe(
      `svc: restored ${[
        join(target.path, "data.db"),
        join(target.path, "data.db.jobs.db"),
        join(target.path, "sessions.db"),
        join(target.path, "files"),
      ].join(", ")} from ${backupDir}\n`,
    );
    expect(listTree(target.path)).toEqual([
      "data.db",
      "data.db.jobs.db",
      "files",
      "files/ab",
      "files/ab/abcdef",
      "sessions.db",
    ]);
    expect(readFileSync(join(target.path, "files", "ab", "abcdef"), "utf8")).toBe("uploaded bytes");
    const jobs = new Database(join(target.path, "data.db.jobs.db"), { readonly: true });
    const jobTables = jobs
      .prepare("select name from sqlite_master where type = 'table' and name = 'svc_jobs'")
      .all();
    jobs.close();
    expect(jobTables).toEqual([{ name: "svc_jobs" }]);

    first.child.kill("SIGKILL");
    const second = start(targetEnv);
    const restoredURL = await second.ready;
    expect(await rowIds(restoredURL, "Todo")).toEqual(inBackup);
    // The session made before the backup still signs the user in.
    const me = await readJSON<{ id?: string; user_id?: string }>(
      request({ url: restoredURL }, "GET", "/api/auth/me", { token: user.token }),
    );
    expect(me.status).toBe(200);
    const created = await request({ url: restoredURL }, "POST", "/api/fn/createTodo", {
      token: user.token,
      body: { title: "after the restore" },
    });
    expect(created.status).toBe(200);
  });

  it("leaves sessions out when SVC_SESSION_DB is unset, and says so", async () => {
    using source = tempDir();
    using target = tempDir();
    const env = envIn(source.path);
    delete env.SVC_SESSION_DB;
    const backupDir = join(source.path, "backup");
    let token: string;
    {
      await using server = await startTestServer(env);
      token = (await registerPassword(server, "memory@example.com")).token;
      const response = await request(server, "POST", "/api/fn/createTodo", {
        token,
        body: { title: "kept" },
      });
      expect(response.status).toBe(200);
      const backup = await svc(env, "backup", backupDir);
      expect(backup.code).toBe(0);
      expect(backup.err).toBe(
        "svc: warning: sessions, API keys and sign-in codes are kept in memory (SVC_SESSION_DB unset) and are not in the backup\n",
      );
    }
    const manifest = JSON.parse(
      readFileSync(join(backupDir, "backup.json"), "utf8"),
    ) as BackupManifest;
    expect(manifest.databases).toEqual({ app: "data.db", jobs: "jobs.db" });
    // No uploads directory existed, so none is in the backup.
    expect(manifest.files).toBeNull();

    const targetEnv = envIn(target.path);
    expect(await svc(targetEnv, "restore", backupDir)).toMatchObject({ code: 0, err: "" });
    expect(existsSync(join(target.path, "sessions.db"))).toBe(false);
    await using restored = await startTestServer(targetEnv);
    expect((await rowIds(restored.url, "Todo")).size).toBe(1);
    const me = await request(restored, "GET", "/api/auth/me", { token });
    expect(me.status).toBe(401);
  });

  it("refuses to restore over a running server's database, and over existing files without --force", async () => {
    using dir = tempDir();
    const env = envIn(dir.path);
    const backupDir = join(dir.path, "backup");
    const appDB = join(dir.path, "data.db");
    {
      await using server = await startTestServer(env);
      for (const title of ["one", "two"]) {
        const response = await request(server, "POST", "/api/entities/List", {
          token: ADMIN_TOKEN,
          body: { title },
        });
        expect(response.status).toBe(201);
      }
      expect((await svc(env, "backup", backupDir)).code).toBe(0);
      const added = await request(server, "POST", "/api/entities/List", {
        token: ADMIN_TOKEN,
        body: { title: "after the backup" },
      });
      expect(added.status).toBe(201);

      const before = sha256(appDB);
      const inUse = await svc(env, "restore", "--force", backupDir);
      expect(inUse).toEqual({
        code: 1,
        out: "",
        err: `svc: restore: DATABASE_IN_USE: ${appDB} is open in a running server; stop it first, nothing was restored\n`,
      });
      expect(sha256(appDB)).toBe(before);
      expect((await rowIds(server.url, "List")).size).toBe(3);
    }

    const exists = await svc(env, "restore", backupDir);
    expect(exists.code).toBe(1);
    expect(exists.err).toBe(
      `svc: restore: TARGET_EXISTS: ${appDB}, ${appDB}.jobs.db, ${join(dir.path, "sessions.db")} already exist; pass --force to replace them\n`,
    );
    expect(idsInFile(appDB, "List").size).toBe(3);

    const forced = await svc(env, "restore", "--force", backupDir);
    expect(forced).toMatchObject({ code: 0, err: "" });
    expect(idsInFile(appDB, "List").size).toBe(2);
    // No staged copies, set-aside files or stale WAL left behind.
    expect(listTree(dir.path).filter((path) => !path.startsWith("backup"))).toEqual([
      "data.db",
      "data.db.jobs.db",
      "sessions.db",
    ]);
    await using restored = await startTestServer(env);
    expect((await rowIds(restored.url, "List")).size).toBe(2);
  });

  describe("a damaged backup", () => {
    let root: { path: string; [Symbol.dispose](): void } | undefined;
    let pristine = "";

    beforeAll(async () => {
      root = tempDir();
      const env = envIn(join(root.path, "server"));
      await using server = await startTestServer(env);
      const user = await registerPassword(server, "damage@example.com");
      for (const title of ["a", "b", "c"]) {
        const response = await request(server, "POST", "/api/fn/createTodo", {
          token: user.token,
          body: { title },
        });
        expect(response.status).toBe(200);
      }
      mkdirSync(join(root.path, "server", "files", "cd"), { recursive: true });
      writeFileSync(join(root.path, "server", "files", "cd", "cdef"), "bytes");
      pristine = join(root.path, "backup");
      expect((await svc(env, "backup", pristine)).code).toBe(0);
    }, 120_000);
    afterAll(() => root?.[Symbol.dispose]());

    /** Rewrites `backup.json` with the size and SHA-256 the files now have. */
    function resign(backup: string): void {
      const path = join(backup, "backup.json");
      const manifest = JSON.parse(readFileSync(path, "utf8")) as BackupManifest;
      const entries = manifest.entries.map((entry) => {
        const bytes = readFileSync(join(backup, entry.path));
        return {
          ...entry,
          bytes: bytes.length,
          sha256: createHash("sha256").update(bytes).digest("hex"),
        };
      });
      writeFileSync(path, JSON.stringify({ ...manifest, entries }));
    }

    /** Overwrites the first byte of the Todo table's root page: a malformed b-tree. */
    function breakTodoTable(file: string): void {
      const database = new Database(file, { readonly: true });
      const { rootpage } = database
        .prepare("select rootpage from sqlite_master where name = 'Todo'")
        .get() as { rootpage: number };
      const pageSize = database.pragma("page_size", { simple: true }) as number;
      database.close();
      const bytes = readFileSync(file);
      bytes[(rootpage - 1) * pageSize] = 0x01;
      writeFileSync(file, bytes);
    }

    it.each<[string, string, (backup: string) => void]>([
      ["no such directory", "INVALID_BACKUP", (backup) => rmSync(backup, { recursive: true })],
      [
        "no backup.json (a backup cut short)",
        "INVALID_BACKUP",
        (backup) => rmSync(join(backup, "backup.json")),
      ],
      [
        "backup.json of another format",
        "INVALID_BACKUP",
        (backup) => writeFileSync(join(backup, "backup.json"), '{"format":"tar"}'),
      ],
      [
        "backup.json naming a path outside the backup",
        "INVALID_BACKUP",
        (backup) => {
          const path = join(backup, "backup.json");
          const manifest = JSON.parse(readFileSync(path, "utf8")) as BackupManifest;
          writeFileSync(path, JSON.stringify({ ...manifest, files: "../elsewhere" }));
        },
      ],
      [
        "a database with a flipped byte",
        "CHECKSUM_MISMATCH",
        (backup) => {
          const bytes = readFileSync(join(backup, "data.db"));
          bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
          writeFileSync(join(backup, "data.db"), bytes);
        },
      ],
      [
        "a missing upload",
        "CHECKSUM_MISMATCH",
        (backup) => rmSync(join(backup, "files", "cd", "cdef")),
      ],
      [
        "a missing sessions database",
        "CHECKSUM_MISMATCH",
        (backup) => rmSync(join(backup, "sessions.db")),
      ],
      [
        "a malformed database whose checksums were rewritten to match",
        "INTEGRITY_CHECK_FAILED",
        (backup) => {
          breakTodoTable(join(backup, "data.db"));
          resign(backup);
        },
      ],
      [
        "a database that is not SQLite at all, checksums rewritten",
        "INTEGRITY_CHECK_FAILED",
        (backup) => {
          writeFileSync(join(backup, "jobs.db"), "not a database".repeat(100));
          resign(backup);
        },
      ],
    ])("is refused cleanly: %s (%s), and nothing is written", async (_name, code, damage) => {
      using work = tempDir();
      const backup = join(work.path, "backup");
      cpSync(pristine, backup, { recursive: true });
      damage(backup);
      const targetRoot = join(work.path, "target");
      const result = await svc(envIn(targetRoot), "restore", backup);
      expect(result.code).toBe(1);
      expect(result.out).toBe("");
      expect(result.err).toMatch(new RegExp(`^svc: restore: ${code}: \\S.*\\n$`));
      expect(listTree(targetRoot)).toEqual([]);
    });

    it("puts the previous files back when putting the backup in place fails half-way", async () => {
      using work = tempDir();
      const targets = {
        databases: {
          app: join(work.path, "data.db"),
          jobs: join(work.path, "data.db.jobs.db"),
          sessions: join(work.path, "sessions.db"),
        },
        filesDir: join(work.path, "files"),
      };
      // The previous state: a database left by a killed process (its last
      // commit only in the -wal file), a file that is no database, and uploads.
      const crashed = join(work.path, "crashed");
      mkdirSync(crashed);
      const live = new Database(join(crashed, "x.db"));
      live.pragma("journal_mode = WAL");
      live.pragma("wal_autocheckpoint = 0");
      live.exec("create table previous (id text)");
      live.prepare("insert into previous values (?)").run("kept");
      cpSync(join(crashed, "x.db"), targets.databases.app);
      cpSync(join(crashed, "x.db-wal"), `${targets.databases.app}-wal`);
      live.close();
      rmSync(crashed, { recursive: true });
      writeFileSync(targets.databases.jobs, "old jobs");
      mkdirSync(targets.filesDir);
      writeFileSync(join(targets.filesDir, "old"), "old upload");

      let renames = 0;
      await expect(
        restoreBackup(pristine, targets, {
          force: true,
          rename: async (from, to) => {
            renames += 1;
            // The sessions database is the third staged copy to go in place.
            if (from.includes(".restore-") && to === targets.databases.sessions) {
              throw new Error("disk on fire");
            }
            await rename(from, to);
          },
        }),
      ).rejects.toMatchObject({
        code: "RESTORE_FAILED",
        message:
          "putting the backup in place failed (disk on fire); the previous files were put back",
      });
      // Set aside and put in: the app database (and its -wal when still there), the jobs one, then the failure.
      expect(renames).toBeGreaterThanOrEqual(5);
      // Exactly the previous files, nothing staged or set aside left over.
      expect(
        listTree(work.path).filter((path) => !path.endsWith("-wal") && !path.endsWith("-shm")),
      ).toEqual(["data.db", "data.db.jobs.db", "files", "files/old"]);
      expect(idsInFile(targets.databases.app, "previous")).toEqual(new Set(["kept"]));
      expect(readFileSync(targets.databases.jobs, "utf8")).toBe("old jobs");
      expect(readFileSync(join(targets.filesDir, "old"), "utf8")).toBe("old upload");
    });
  });

  it("refuses what it cannot back up, with a code and exit status 1", async () => {
    using dir = tempDir();
    const env = envIn(dir.path);
    const missing = await svc(env, "backup", join(dir.path, "backup"));
    expect(missing).toEqual({
      code: 1,
      out: "",
      err: `svc: backup: NOTHING_TO_BACK_UP: the database ${join(dir.path, "data.db")} does not exist (check SVC_DB_PATH and SVC_MANIFEST)\n`,
    });
    expect(existsSync(join(dir.path, "backup"))).toBe(false);

    const memory = await svc({ ...env, SVC_DB_PATH: ":memory:" }, "backup", join(dir.path, "b"));
    expect(memory.err).toBe(
      "svc: backup: NOTHING_TO_BACK_UP: the database is in memory (SVC_DB_PATH=:memory:); there is nothing to back up\n",
    );

    {
      await using _server = await startTestServer(env);
    }
    mkdirSync(join(dir.path, "full"));
    writeFileSync(join(dir.path, "full", "keep"), "mine");
    const notEmpty = await svc(env, "backup", join(dir.path, "full"));
    expect(notEmpty.code).toBe(1);
    expect(notEmpty.err).toBe(
      `svc: backup: BACKUP_DIR_NOT_EMPTY: ${join(dir.path, "full")} is not empty; give a new directory for each backup\n`,
    );
    expect(listTree(join(dir.path, "full"))).toEqual(["keep"]);

    const inside = await svc(env, "backup", join(dir.path, "files", "backup"));
    expect(inside.err).toMatch(/^svc: backup: BACKUP_DIR_INVALID: /);

    const postgres = await svc(
      { ...env, DATABASE_URL: "postgres://svc@db.internal:5432/svc" },
      "backup",
      join(dir.path, "pg"),
    );
    expect(postgres.code).toBe(1);
    expect(postgres.err).toMatch(/^svc: backup: POSTGRES_BACKUP: DATABASE_URL is set/);
    expect(postgres.err).toContain("pg_dump --format=custom --no-owner --file=svc-$(date");
    expect(postgres.err).toContain(
      "pg_restore --clean --if-exists --no-owner --single-transaction",
    );
    const postgresRestore = await svc(
      { ...env, DATABASE_URL: "postgres://svc@db.internal:5432/svc" },
      "restore",
      join(dir.path, "pg"),
    );
    expect(postgresRestore.err).toMatch(/^svc: restore: POSTGRES_BACKUP: /);

    // An existing empty directory (a mount point, say) is written in place.
    mkdirSync(join(dir.path, "empty"));
    expect((await svc(env, "backup", join(dir.path, "empty"))).code).toBe(0);
    expect(listTree(join(dir.path, "empty"))).toContain("backup.json");
    // Nothing else was left beside the backups.
    expect(readdirSync(dir.path).filter((name) => name.startsWith("."))).toEqual([]);
  });

  it.each([
    [["backup"], "svc backup takes one directory"],
    [["restore", "a", "b"], "svc restore takes one directory"],
    [["backup", "--force", "x"], "--force is an option of svc restore"],
    [["restore", "--bogus", "x"], "Unknown option '--bogus'"],
  ])("answers a usage mistake (%j) with the usage and exit status 2", async (argv, message) => {
    const result = await svc({}, ...argv);
    expect(result.code).toBe(2);
    expect(result.err).toContain(message);
    expect(result.err).toContain("Usage: svc backup <dir>");
  });

  it("names the invalid variable when the environment is not the server's", async () => {
    const result = await svc({ SVC_MANIFEST: TODO_MANIFEST }, "backup", "/nonexistent/backup");
    expect(result).toEqual({
      code: 1,
      out: "",
      err: expect.stringMatching(/^svc: .*SVC_ADMIN_TOKEN.*\n$/),
    });
  });

  it("documents every error code in the deployment docs", () => {
    const page = readFileSync(
      resolve(import.meta.dirname, "../../../packages/agent-docs/content/deployment/backup.md"),
      "utf8",
    );
    const undocumented = Object.keys(BACKUP_ERROR_CODES).filter(
      (code) => !page.includes(`\`${code}\``),
    );
    expect(undocumented).toEqual([]);
  });

  it("exits the svc process with the status and prints the coded line", async () => {
    using dir = tempDir();
    const child = spawn(
      process.execPath,
      ["--conditions=@svc/source", "--import", "tsx", "src/cli.ts", "restore", dir.path],
      {
        cwd: resolve(import.meta.dirname, ".."),
        env: { PATH: process.env.PATH ?? "", ...envIn(join(dir.path, "target")) },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolveExit) =>
      child.once("exit", (exitCode) => resolveExit(exitCode)),
    );
    expect(stderr).toBe(
      `svc: restore: INVALID_BACKUP: ${join(dir.path, "backup.json")} is missing or not JSON; is ${dir.path} a complete svc backup?\n`,
    );
    expect(code).toBe(1);
  });
});

/** Runs a command to its end; resolves with its exit code and output. */
function run(
  command: string,
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) => resolveRun({ code, stdout, stderr }));
  });
}

// The Postgres suites run when SVC_TEST_DATABASE_URL is set (as in CI).
const postgresURL = process.env.SVC_TEST_DATABASE_URL;

describe.runIf(postgresURL !== undefined)(
  "the documented pg_dump and pg_restore commands",
  { timeout: 120_000 },
  () => {
    let target: TestDatabaseTarget | undefined;
    afterEach(async () => {
      if (target !== undefined) await postgresDatabase().destroy(target);
      target = undefined;
    });

    function postgresDatabase() {
      const database = postgresTestDatabase();
      if (database === undefined) throw new Error("SVC_TEST_DATABASE_URL is set but unused");
      return database;
    }

    it("dump a running server's database and restore it over later writes; a server boots on it with the rows and sessions", async () => {
      target = await postgresDatabase().create();
      const { url, schema } = postgresTarget(target);
      using dir = tempDir();
      const env = {
        SVC_MANIFEST: TODO_MANIFEST,
        SVC_ADMIN_TOKEN: ADMIN_TOKEN,
        DATABASE_URL: url,
        SVC_FILES_DIR: join(dir.path, "files"),
      };
      const dump = join(dir.path, "svc.dump");
      let token: string;
      let dumped: Set<string>;
      {
        await using server = await startTestServer(env);
        token = (await registerPassword(server, "pg-backup@example.com")).token;
        for (const title of ["one", "two", "three"]) {
          const response = await request(server, "POST", "/api/fn/createTodo", {
            token,
            body: { title },
          });
          expect(response.status).toBe(200);
        }
        dumped = await rowIds(server.url, "Todo");
        // svc backup points at these commands.
        const advice = await svc(env, "backup", join(dir.path, "backup"));
        expect(advice.err).toContain(
          'pg_dump --format=custom --no-owner --file=svc-$(date -u +%Y%m%dT%H%M%SZ).dump "$DATABASE_URL"',
        );
        // The documented dump, taken while the server runs; --schema keeps
        // it to this test's schema of the shared test database.
        const dumpRun = await run("pg_dump", [
          "--format=custom",
          "--no-owner",
          `--schema=${schema}`,
          `--file=${dump}`,
          postgresURL ?? "",
        ]);
        expect(dumpRun.stderr).toBe("");
        expect(dumpRun.code).toBe(0);
        const later = await request(server, "POST", "/api/fn/createTodo", {
          token,
          body: { title: "after the dump" },
        });
        expect(later.status).toBe(200);
        expect((await rowIds(server.url, "Todo")).size).toBe(4);
      }
      // The documented restore, with every server stopped.
      const restoreRun = await run("pg_restore", [
        "--clean",
        "--if-exists",
        "--no-owner",
        "--single-transaction",
        `--dbname=${postgresURL ?? ""}`,
        dump,
      ]);
      expect(restoreRun.stderr).toBe("");
      expect(restoreRun.code).toBe(0);
      await using restored = await startTestServer(env);
      expect(await rowIds(restored.url, "Todo")).toEqual(dumped);
      const me = await request(restored, "GET", "/api/auth/me", { token });
      expect(me.status).toBe(200);
    });
  },
);
