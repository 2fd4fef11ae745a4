import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenedDatabase, openAccessDatabase } from "../../test/access-databases.js";
import { fixtureManifest } from "../../test/fixture-manifest.js";
import { compilePolicies } from "../compile-policies.js";
import { adviseIndexes } from "./index-advice.js";
import { measureIndex } from "./measure-index.js";

const compiled = compilePolicies(
  fixtureManifest([{ name: "own", entity: "Todo", allowRead: "auth.userId == data.ownerId" }]),
);

describe.each(testDatabases())("measureIndex on $name", (kind) => {
  let opened: OpenedDatabase;

  beforeAll(async () => {
    opened = await openAccessDatabase(kind);
  });

  afterAll(async () => {
    await opened?.close();
  });

  it("times an owner filter on a seeded table without and with the advised index", async () => {
    const [advice] = adviseIndexes(compiled);
    expect(advice?.createIndex).toBe('CREATE INDEX "Todo_by_ownerId" ON "Todo" ("ownerId");');
    if (advice === undefined) return;
    const measured = await measureIndex(opened.database, compiled, advice, { rows: 20_000 });
    expect(measured).toMatchObject({ database: kind.name, rows: 20_000 });
    // A scan of 20,000 rows against an index lookup of 20: far apart even on a loaded machine.
    expect(measured.withIndex).toBeLessThan(measured.withoutIndex);
  });
});
