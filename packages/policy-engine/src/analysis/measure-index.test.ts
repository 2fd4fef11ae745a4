import { testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import { fixtureManifest } from "../../test/fixture-manifest.js";
import { useAccessDatabase } from "../../test/use-access-database.js";
import { compilePolicies } from "../compile-policies.js";
import { adviseIndexes } from "./index-advice.js";
import { measureIndex } from "./measure-index.js";

const compiled = compilePolicies(
  fixtureManifest([{ name: "own", entity: "Todo", allowRead: "auth.userId == data.ownerId" }]),
);

describe.each(testDatabases())("measureIndex on $name", (kind) => {
  const database = useAccessDatabase(kind);

  it("times an owner filter on a seeded table without and with the advised index", async () => {
    const [advice] = adviseIndexes(compiled);
    expect(advice?.createIndex).toBe('CREATE INDEX "Todo_by_ownerId" ON "Todo" ("ownerId");');
    if (advice === undefined) return;
    const measured = await measureIndex(database(), compiled, advice, { rows: 20_000 });
    expect(measured).toMatchObject({ database: kind.name, rows: 20_000 });
    // A scan of 20,000 rows against an index lookup of 20: far apart even on a loaded machine.
    expect(measured.withIndex).toBeLessThan(measured.withoutIndex);
  });
});
