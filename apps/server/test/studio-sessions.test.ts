import { createHash } from "node:crypto";
import { join } from "node:path";
import { postgresTestDatabase, testDatabases } from "@svc/tooling/databases";
import { afterEach, describe, expect, it } from "vitest";
import { STUDIO_SESSIONS_TABLE, studioSessionTable } from "../src/studio/studio-session-table.js";
import { createStudioSessions } from "../src/studio/studio-sessions.js";
import { appPerTest } from "./app-server.js";
import {
  type AuthTestServer,
  CLOCK_START,
  createClock,
  createTestDatabase,
} from "./auth-fixtures.js";
import { tempDir } from "./fixtures.js";
import {
  isSignInForm,
  StudioClient,
  startStudioServer,
  writeStudioApp,
} from "./studio-fixtures.js";

// Issue 22, goal 5: studio sessions live in the database (beside auth-core's
// sessions: SVC_SESSION_DB on SQLite, the application database on
// Postgres), so a sign-in survives a restart and works on every server of
// one database, and a sign-out on one server is refused by the others at
// once. Before, they lived in one process's memory: a restart or another
// server answered the sign-in form.

const EIGHT_HOURS = 8 * 60 * 60 * 1000;

/** The cookie's session id (`svc_studio=<id>`). */
function idOf(client: StudioClient): string {
  return client.cookie?.split("=")[1] ?? "";
}

/** Every row of the studio's session table, as stored. */
async function storedRows(server: AuthTestServer): Promise<Record<string, unknown>[]> {
  return studioSessionTable(server.auth.database)
    .selectFrom(STUDIO_SESSIONS_TABLE)
    .selectAll()
    .execute();
}

describe.each(testDatabases())("studio sessions on $name", (database) => {
  const app = appPerTest(database, writeStudioApp);
  const servers: AuthTestServer[] = [];

  /** A server on the test's database and files, closed after the test. */
  async function start(): Promise<AuthTestServer> {
    // On SQLite the session database is a file, as in production.
    const env = { SVC_SESSION_DB: join(app.dir, "sessions.db") };
    const server = await startStudioServer(app.target, app.dir, env);
    servers.push(server);
    return server;
  }

  async function stop(server: AuthTestServer): Promise<void> {
    servers.splice(servers.indexOf(server), 1);
    expect(server.internalErrors).toEqual([]);
    await server[Symbol.asyncDispose]();
  }

  afterEach(async () => {
    for (const server of servers.splice(0)) {
      expect(server.internalErrors).toEqual([]);
      await server[Symbol.asyncDispose]();
    }
  });

  it("survives a restart of the server on the same database", async () => {
    const first = await start();
    const studio = new StudioClient(first);
    await studio.signIn();
    await stop(first);

    const second = await start();
    const browser = Object.assign(new StudioClient(second), {
      cookie: studio.cookie,
      csrf: studio.csrf,
    });
    const page = await browser.get("/studio/jobs");
    expect(page.status).toBe(200);
    expect(isSignInForm(page)).toBe(false);
    // The CSRF token the first server's page gave still signs a form.
    expect((await browser.post("/studio/sign-out")).status).toBe(303);
    browser.cookie = studio.cookie;
    expect((await browser.get("/studio/jobs")).status).toBe(401);
  });

  it("keeps only a SHA-256 of the session id, with its times, and deletes the row on sign-out", async () => {
    const server = await start();
    const studio = new StudioClient(server);
    await studio.signIn();
    const rows = await storedRows(server);
    expect(rows).toHaveLength(1);
    const id = idOf(studio);
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]).toEqual({
      id: createHash("sha256").update(id).digest("hex"),
      created_at: expect.anything(),
      expires_at: expect.anything(),
    });
    expect(Number(rows[0]?.created_at)).toBe(CLOCK_START);
    expect(Number(rows[0]?.expires_at)).toBe(CLOCK_START + EIGHT_HOURS);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(id);
    expect(stored).not.toContain(studio.csrf);

    await studio.post("/studio/sign-out");
    expect(await storedRows(server)).toEqual([]);
  });

  it("keeps at most its capacity (the oldest goes first) and prunes expired rows on sign-in", async () => {
    const server = await start();
    const clock = createClock();
    const sessions = createStudioSessions({
      database: server.auth.database,
      now: clock.now,
      capacity: 3,
    });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await sessions.create()).id);
      clock.advance(1);
    }
    expect(await storedRows(server)).toHaveLength(3);
    const live = await Promise.all(ids.map(async (id) => (await sessions.resolve(id)) !== null));
    expect(live).toEqual([false, false, true, true, true]);

    // Expired rows go at the next sign-in, whether or not anyone looked them up.
    clock.advance(EIGHT_HOURS);
    const fresh = await sessions.create();
    expect(await storedRows(server)).toHaveLength(1);
    expect(await sessions.resolve(fresh.id)).not.toBeNull();
    expect(await sessions.resolve(ids[4])).toBeNull();
  });
});

const postgres = postgresTestDatabase();

describe.skipIf(postgres === undefined)("studio sessions on two servers sharing Postgres", () => {
  it("a sign-in on one works on the other, and a sign-out on one is refused by the other at once", async () => {
    if (postgres === undefined) return;
    await using db = await createTestDatabase(postgres);
    const dir = tempDir();
    try {
      writeStudioApp(dir.path);
      await using a = await startStudioServer(db.target, dir.path);
      await using b = await startStudioServer(db.target, dir.path);
      const onA = new StudioClient(a);
      await onA.signIn();
      const onB = Object.assign(new StudioClient(b), { cookie: onA.cookie, csrf: onA.csrf });

      const page = await onB.get("/studio/entities/Note");
      expect(page.status).toBe(200);
      expect(isSignInForm(page)).toBe(false);
      // A form signed with A's CSRF token changes a row through B.
      const created = await onB.post("/studio/entities/Note/new", {
        title: "from b",
        count: "1",
        done: "false",
        tag: "red",
        ownerId: "owner-1",
      });
      expect(created.status).toBe(303);

      expect((await onA.get("/studio/jobs")).status).toBe(200);
      expect((await onB.post("/studio/sign-out")).status).toBe(303);
      // No cache: A's very next request is refused.
      const after = await onA.get("/studio/jobs");
      expect(after.status).toBe(401);
      expect(isSignInForm(after)).toBe(true);
      expect(a.internalErrors).toEqual([]);
      expect(b.internalErrors).toEqual([]);
    } finally {
      dir[Symbol.dispose]();
    }
  });
});
