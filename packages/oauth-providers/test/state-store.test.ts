import { parseManifest } from "@svc/schema";
import { createStore, dialectFor, type StoreDatabase } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import { openTestDatabase, type TestDatabaseTarget, testDatabases } from "@svc/tooling/databases";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createHandshakeValues,
  createStateStore,
  OAuthError,
  oauthStateMigrations,
  STATE_TTL_MS,
  type StateStore,
} from "../src/index.js";

// The OAuth state store on every database: single use, a 10-minute expiry
// on an injected clock, refusal of unknown states, and a restart between
// save and consume (a new connection and store over the same database). On
// SQLite the table lives in an attached file, as auth-core's session store.

const manifest = parseManifest({
  manifest_version: 1,
  name: "oauth-state-test",
  version: "1",
  entities: [{ name: "User", fields: [{ name: "email", type: "string", unique: true }] }],
});

const START = Date.UTC(2026, 10, 25, 10, 0, 0);

describe.each(testDatabases())("state store on $name", (database) => {
  let target: TestDatabaseTarget;
  let opened: StoreDatabase[] = [];
  let clock = START;

  /** Opens a connection, migrates, and returns a state store over it (a server starting). */
  async function boot(): Promise<StateStore> {
    const connection = openTestDatabase(
      target,
      { openSqlite, openPostgres },
      { attach: { auth: "auth.db" }, max: 2 },
    );
    opened.push(connection);
    const schema = dialectFor(connection.dialect).attachedSchema("auth");
    const store = createStore({ db: connection.db, dialect: connection.dialect, manifest });
    await store.migrate({ packages: [oauthStateMigrations(schema)] });
    return createStateStore({
      db: connection.db,
      dialect: connection.dialect,
      ...(schema !== undefined && { schema }),
      secret: "state hmac key, 32 characters long",
      now: () => clock,
    });
  }

  beforeEach(async () => {
    clock = START;
    target = await database.create();
  });

  afterEach(async () => {
    await Promise.all(opened.map((connection) => connection.close()));
    opened = [];
    await database.destroy(target);
  });

  async function saveOne(states: StateStore, callback: string | null = "https://app.example/") {
    const values = createHandshakeValues();
    await states.save({ ...values, provider: "github", callback });
    return values;
  }

  it("gives the saved handshake back once", async () => {
    const states = await boot();
    const values = await saveOne(states);
    expect(await states.consume(values.state, "github")).toEqual({
      provider: "github",
      codeVerifier: values.codeVerifier,
      nonce: values.nonce,
      callback: "https://app.example/",
      response: "cookie",
    });
    // Replayed: the row is gone.
    await expect(states.consume(values.state, "github")).rejects.toMatchObject({
      code: "INVALID_STATE",
      status: 400,
    });
  });

  it("keeps the token hand-over choice", async () => {
    const states = await boot();
    const values = createHandshakeValues();
    await states.save({ ...values, provider: "github", callback: null, response: "token" });
    expect(await states.consume(values.state)).toMatchObject({ callback: null, response: "token" });
  });

  it("clear drops every outstanding handshake", async () => {
    const states = await boot();
    const first = await saveOne(states);
    const second = await saveOne(states);
    await states.clear();
    for (const values of [first, second]) {
      await expect(states.consume(values.state)).rejects.toMatchObject({ code: "INVALID_STATE" });
    }
  });

  it("refuses unknown and empty states", async () => {
    const states = await boot();
    await saveOne(states);
    const error = await states.consume("never-issued").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({ code: "INVALID_STATE" });
    await expect(states.consume("")).rejects.toMatchObject({ code: "INVALID_STATE" });
  });

  it("refuses a state after ten minutes", async () => {
    const states = await boot();
    const fresh = await saveOne(states);
    const stale = await saveOne(states, null);
    clock += STATE_TTL_MS - 1;
    expect((await states.consume(fresh.state)).provider).toBe("github");
    clock += 1;
    await expect(states.consume(stale.state)).rejects.toMatchObject({ code: "INVALID_STATE" });
  });

  it("refuses a state started for another provider, and burns it", async () => {
    const states = await boot();
    const values = await saveOne(states);
    await expect(states.consume(values.state, "google")).rejects.toMatchObject({
      code: "INVALID_STATE",
    });
    await expect(states.consume(values.state, "github")).rejects.toMatchObject({
      code: "INVALID_STATE",
    });
  });

  it("survives a restart between save and consume", async () => {
    const before = await boot();
    const values = await saveOne(before);
    await Promise.all(opened.map((connection) => connection.close()));
    opened = [];
    const after = await boot();
    expect((await after.consume(values.state, "github")).nonce).toBe(values.nonce);
  });

  it("lets only one of two concurrent callbacks through", async () => {
    const states = await boot();
    const values = await saveOne(states);
    const results = await Promise.allSettled([
      states.consume(values.state),
      states.consume(values.state),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
  });

  it("keeps no plain state in the table and drops expired rows on save", async () => {
    const states = await boot();
    const values = await saveOne(states);
    const connection = opened[0];
    if (connection === undefined) throw new Error("not booted");
    const scoped = dialectFor(connection.dialect).withAttachedSchema(connection.db, "auth");
    const rows = await scoped.selectFrom("svc_oauth_state").selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(values.state);
    clock += STATE_TTL_MS;
    await saveOne(states);
    expect(await scoped.selectFrom("svc_oauth_state").selectAll().execute()).toHaveLength(1);
  });
});
