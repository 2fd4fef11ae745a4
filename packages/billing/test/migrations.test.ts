import { parseManifest } from "@svc/schema";
import { createStore, type StoreDatabase, type StoreDialect } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import {
  matchTarget,
  openTestDatabase,
  type TestDatabaseTarget,
  testDatabases,
} from "@svc/tooling/databases";
import type { Kysely } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type BillingTables, billingMigrations, createBilling } from "../src/index.js";
import { billingManifest } from "./fixture.js";

// Billing's tables arrive through the store's migration run, once, on both
// dialects; and billing refuses, at creation, a User that cannot hold the
// customer id when payments are configured.

describe.each(testDatabases())("billing tables on $name", (database) => {
  let target: TestDatabaseTarget;
  let connection: StoreDatabase;

  beforeEach(async () => {
    target = await database.create();
    connection = openTestDatabase(target, { openSqlite, openPostgres }, { max: 2 });
  });
  afterEach(async () => {
    await connection.close();
    await database.destroy(target);
  });

  it("creates the ledger and the subscriptions once", async () => {
    const store = createStore({
      db: connection.db,
      dialect: connection.dialect,
      manifest: billingManifest,
    });
    const first = await store.migrate({ packages: [billingMigrations()] });
    expect(first.applied).toContain("@svc/billing 001_events_subscriptions");
    const again = await store.migrate({ packages: [billingMigrations()] });
    expect(again.applied).toEqual([]);
    const tables = connection.db as unknown as Kysely<BillingTables>;
    expect(await tables.selectFrom("svc_billing_events").selectAll().execute()).toEqual([]);
    expect(await tables.selectFrom("svc_billing_subscriptions").selectAll().execute()).toEqual([]);
  });

  it("checks the User entity only when payments are configured", () => {
    const manifest = parseManifest({
      manifest_version: 1,
      name: "no-customer-field",
      version: "1",
      entities: [{ name: "User", fields: [{ name: "email", type: "string", unique: true }] }],
    });
    const store = createStore({ db: connection.db, dialect: connection.dialect, manifest });
    const base = { store, db: connection.db, dialect: connection.dialect, trustedOrigins: [] };
    expect(() => createBilling(base)).not.toThrow();
    expect(() => createBilling({ ...base, apiKey: "sk_test_1" })).toThrow(
      expect.objectContaining({ name: "ConfigError", variable: "User.paymentCustomerId" }),
    );
    const otherDialect = matchTarget<StoreDialect>(target, {
      sqlite: () => "postgres",
      postgres: () => "sqlite",
    });
    expect(() => createBilling({ ...base, dialect: otherDialect })).toThrow(TypeError);
  });
});
