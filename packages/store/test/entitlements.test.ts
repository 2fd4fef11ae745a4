import { compilePolicies, evaluateAccess } from "@svc/policy-engine";
import { describe, expect, it } from "vitest";
import { type AuthContext, adminAuth, anonymousAuth, createAuthContext } from "../src/index.js";
import { databases, expectStoreError, manifestOf, useStore } from "./fixture.js";
import { testManifest } from "./manifests.js";

const planManifest = testManifest(
  "plans",
  [
    {
      name: "Report",
      fields: [
        { name: "title", type: "string" },
        { name: "premium", type: "bool" },
        { name: "ownerId", type: "string", owner: true },
      ],
    },
  ],
  {
    policies: [
      {
        name: "premium reports for paying users",
        entity: "Report",
        allowRead:
          "auth.userId == data.ownerId && (!data.premium || auth.hasEntitlement('price_pro'))",
        allowInsert: "auth.userId != null && auth.hasEntitlement('price_pro')",
        allowDelete:
          "auth.userId == existing.ownerId && existing.premium == auth.hasEntitlement('prod_team')",
      },
    ],
  },
);

const free = createAuthContext({ userId: "ada" });
const pro = createAuthContext({ userId: "ada", entitlements: ["price_pro"] });
const team = createAuthContext({ userId: "ada", entitlements: ["price_pro", "prod_team"] });

describe.each(databases)("auth.hasEntitlement on $name", (database) => {
  const fixture = useStore(database, { manifest: planManifest });

  async function seed(): Promise<void> {
    await fixture().store.transaction(adminAuth, async (db) => {
      await db.insert("Report", { title: "basic", premium: false, ownerId: "ada" });
      await db.insert("Report", { title: "deep dive", premium: true, ownerId: "ada" });
    });
  }

  async function titles(auth: AuthContext): Promise<unknown[]> {
    const page = await fixture().store.reader(auth).query("Report");
    return page.rows.map((row) => row.title).sort();
  }

  it("filters reads by the caller's entitlements, as the evaluator does", async () => {
    await seed();
    expect(await titles(free)).toEqual(["basic"]);
    expect(await titles(pro)).toEqual(["basic", "deep dive"]);
    expect(await titles(anonymousAuth)).toEqual([]);
    const compiled = compilePolicies(manifestOf(planManifest));
    const rows = (await fixture().store.reader(adminAuth).query("Report")).rows;
    for (const auth of [free, pro, team, anonymousAuth]) {
      const expected = rows
        .filter(
          (data) =>
            evaluateAccess(compiled, { entity: "Report", action: "read", auth, data }).allowed,
        )
        .map((row) => row.title)
        .sort();
      expect(await titles(auth)).toEqual(expected);
    }
  });

  it("denies a write the caller's plan does not cover with 403 POLICY_DENIED", async () => {
    await expectStoreError(
      fixture().store.transaction(free, (db) =>
        db.insert("Report", { title: "x", premium: false }),
      ),
      "POLICY_DENIED",
    );
    const created = await fixture().store.transaction(pro, (db) =>
      db.insert("Report", { title: "y", premium: true }),
    );
    expect(created).toMatchObject({ title: "y", ownerId: "ada" });
    await expectStoreError(
      fixture().store.transaction(pro, (db) => db.delete("Report", created.id)),
      "POLICY_DENIED",
    );
    await fixture().store.transaction(team, (db) => db.delete("Report", created.id));
    expect(await titles(team)).toEqual([]);
  });
});
