import { DatabaseRateLimitStore } from "@svc/auth-core/express";
import { dialectFor, type EntityTables } from "@svc/store";
import { sqliteTestDatabase } from "@svc/tooling/databases";
import type { Options } from "express-rate-limit";
import type { Kysely } from "kysely";
import { describe, expect, it } from "vitest";
import { type Auth, accountTableNames, sessionTableNames } from "../src/index.js";
import {
  type AuthConnection,
  databases,
  expectAuthError,
  sessionOf,
  useAuthFixture,
} from "./fixture.js";

// auth-core's package migrations through `store.migrate`: each step runs
// once per database, recorded in `_svc_migrations` beside its tables, and a
// restart over the same files (or the same Postgres schema) applies nothing.

/** `${owner} ${id}` of every migration auth-core declares, as `migrate` reports them. */
function declaredSteps(auth: Auth): string[] {
  return auth.migrations.flatMap((pkg) => pkg.migrations.map(({ id }) => `${pkg.owner} ${id}`));
}

/** Every auth-core row of the migration history, wherever its package keeps it. */
async function historyOf(connection: AuthConnection): Promise<string[]> {
  const { dialect, schema } = connection.database;
  const places: Kysely<EntityTables>[] =
    dialectFor(dialect).attachedSchema(schema) !== undefined
      ? [connection.db, connection.authSchema]
      : [connection.db];
  const rows: string[] = [];
  for (const db of places) {
    const found = await db
      .selectFrom("_svc_migrations")
      .select(["owner", "id"])
      .where("owner", "like", "@svc/auth-core%")
      .execute();
    rows.push(...found.map(({ owner, id }) => `${String(owner)} ${String(id)}`));
  }
  return rows.sort();
}

async function countRows(connection: AuthConnection): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of sessionTableNames) {
    counts[table] = (await connection.tables.selectFrom(table).selectAll().execute()).length;
  }
  for (const table of accountTableNames) {
    counts[table] = (await connection.accountTables.selectFrom(table).selectAll().execute()).length;
  }
  return counts;
}

describe.each(databases)("auth-core migrations on $name", (database) => {
  const fresh = useAuthFixture(database, { migrate: false });

  it("the first migrate applies every declared step, the second nothing, and history records each once", async () => {
    const f = fresh();
    const steps = declaredSteps(f.auth);
    expect(steps.length).toBeGreaterThan(0);
    const applied = await f.migrate();
    expect(applied.filter((step) => step.startsWith("@svc/auth-core"))).toEqual(steps);
    expect(await f.migrate()).toEqual([]);
    expect(await f.migrate()).toEqual([]);
    expect(await historyOf(f)).toEqual([...steps].sort());
  });

  it("two Auth instances migrating the same database apply the steps once", async () => {
    const f = fresh();
    await f.migrate();
    const again = await f.store.migrate({ packages: f.createAuth().migrations });
    expect(again.applied).toEqual([]);
    expect(await historyOf(f)).toEqual(declaredSteps(f.auth).sort());
  });
});

describe.each(databases)("a restart with file-backed auth tables on $name", (database) => {
  const fixture = useAuthFixture(database, { authFile: true });

  it("applies nothing again and keeps sessions, codes and cooldowns", async () => {
    const f = fixture();
    const { token, userId } = await f.signIn("a@example.com");
    await f.auth.sendMagicCode({ email: "b@example.com" }, { exposeDevCode: false });
    const pending = f.lastCode("b@example.com");
    await f.disconnect();

    const restarted = await f.connect({ migrate: false });
    expect(await restarted.migrate()).toEqual([]);
    expect(await historyOf(restarted)).toEqual(declaredSteps(restarted.auth).sort());
    expect(await restarted.auth.resolveSession(token)).toMatchObject({ userId });
    await expectAuthError(
      restarted.auth.sendMagicCode({ email: "b@example.com" }, { exposeDevCode: false }),
      "RATE_LIMITED",
    );
    const signedIn = await restarted.auth.verifyMagicCode(
      { email: "b@example.com", code: pending },
      {},
    );
    expect(sessionOf(signedIn).user_id).not.toBe(userId);
  });
});

describe.each([sqliteTestDatabase()])(
  "a restart with in-memory auth tables on $name",
  (database) => {
    const fixture = useAuthFixture(database);

    it("starts the session store afresh: its steps apply again and old sessions are gone", async () => {
      const f = fixture();
      const { token } = await f.signIn("a@example.com");
      await f.disconnect();
      const restarted = await f.connect({ migrate: false });
      const sessionSteps = restarted.auth.migrations
        .filter((pkg) => pkg.schema !== undefined)
        .flatMap((pkg) => pkg.migrations.map(({ id }) => `${pkg.owner} ${id}`));
      expect(sessionSteps.length).toBeGreaterThan(0);
      expect(await restarted.migrate()).toEqual(sessionSteps);
      expect(await restarted.auth.resolveSession(token)).toBeNull();
      // The User row is application data and survives.
      expect((await restarted.store.systemReader().query("User", {})).rows).toHaveLength(1);
    });
  },
);

describe.each(databases)("auth.reset on $name", (database) => {
  const fixture = useAuthFixture(database);

  it("empties every auth table", async () => {
    const f = fixture();
    const { token } = await f.signIn("a@example.com");
    await f.auth.registerPassword({ email: "p@example.com", password: "a good long password" }, {});
    await f.auth.sendMagicCode({ email: "c@example.com" }, { exposeDevCode: false });
    const limiter = new DatabaseRateLimitStore(f.database, { prefix: "ip:", now: f.clock.now });
    limiter.init({ windowMs: 60_000 } as Options);
    await limiter.increment("203.0.113.9");
    const session = await f.auth.resolveSession(token);
    if (session === null) throw new Error("the fixture's session did not resolve");
    await f.auth.createApiKey(session, { name: "ci" });
    // Signing out writes the revocation journal; sign in again for a live token.
    await f.auth.revokeSession(session);
    const { token: live } = await f.signIn("b@example.com");
    const now = f.clock.now();
    await f.accountTables
      .insertInto("svc_linked_accounts")
      .values({
        id: "l1",
        user_id: "u1",
        provider: "github",
        provider_user_id: "1",
        email: null,
        created_at: now,
      })
      .execute();
    await f.tables
      .insertInto("svc_trusted_device")
      .values({ id: "d1", user_id: "u1", created_at: now, expires_at: now + 1, user_agent: null })
      .execute();
    expect(Object.values(await countRows(f)).every((count) => count > 0)).toBe(true);

    await f.auth.reset();

    const counts = await countRows(f);
    expect(Object.keys(counts).sort()).toEqual([...sessionTableNames, ...accountTableNames].sort());
    expect(Object.values(counts).every((count) => count === 0)).toBe(true);
    expect(await f.auth.resolveSession(token)).toBeNull();
    expect(await f.auth.resolveSession(live)).toBeNull();
    // The cooldown went with the codes.
    await f.auth.sendMagicCode({ email: "c@example.com" }, { exposeDevCode: false });
    expect((await limiter.increment("203.0.113.9")).totalHits).toBe(1);
  });
});
