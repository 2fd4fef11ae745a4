import type { PolicyDef } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { fixtureManifest } from "../../test/fixture-manifest.js";
import { OWN_TODOS } from "../../test/own-todos.js";
import { compilePolicies } from "../compile-policies.js";
import { formatLintFindings } from "./format-analysis.js";
import { lintPolicies } from "./lint-policies.js";

const LIST: PolicyDef = {
  name: "tenant lists",
  entity: "List",
  allowRead: "auth.tenantId == data.tenantId",
  allowInsert: "data.tenantId == auth.tenantId",
  allowUpdate: "auth.tenantId == existing.tenantId && data.tenantId == existing.tenantId",
};
const MEMBER: PolicyDef = {
  name: "members",
  entity: "Member",
  allowRead: "auth.userId == data.userId",
  allowInsert: "data.userId == auth.userId",
};

/** The fixture manifest with indexes on what the clean policies filter and look up. */
function manifest(policies: PolicyDef[]) {
  const base = fixtureManifest(policies);
  const indexes: Record<string, string[][]> = {
    List: [["tenantId"]],
    Todo: [["ownerId"]],
    Member: [["userId"], ["listId"]],
  };
  return {
    ...base,
    entities: base.entities.map((entity) => ({
      ...entity,
      indexes: (indexes[entity.name] ?? []).map((fields) => ({
        name: `by_${fields.join("_")}`,
        fields,
        unique: false,
      })),
    })),
  };
}

const lint = (...policies: PolicyDef[]) => lintPolicies(compilePolicies(manifest(policies)));
const codes = (findings: ReturnType<typeof lint>) =>
  findings.map(
    (f) => `${f.level} ${f.code} ${f.entity}${f.field === undefined ? "" : ` ${f.field}`}`,
  );

describe("lintPolicies", () => {
  it("finds nothing to fix in sound, indexed policies (and notes the entity with no policy)", () => {
    expect(codes(lint(LIST, OWN_TODOS, MEMBER))).toEqual(["info NO_POLICY Secret"]);
  });

  it("catches an always-true rule (the seeded bug), and an always-false one", () => {
    expect(
      codes(
        lint(
          LIST,
          { ...OWN_TODOS, allowDelete: "true || auth.userId == existing.ownerId" },
          MEMBER,
        ),
      ),
    ).toContain("error ALWAYS_TRUE Todo");
    expect(
      codes(
        lint(
          LIST,
          { ...OWN_TODOS, allowUpdate: "auth.userId == existing.ownerId && auth.userId == null" },
          MEMBER,
        ),
      ),
    ).toContain("warning ALWAYS_FALSE Todo");
  });

  it("catches an insert rule that does not pin the owner or tenant field (the seeded bug)", () => {
    const findings = lint({ ...LIST, allowInsert: "auth.tenantId != null" }, OWN_TODOS, {
      ...MEMBER,
      allowInsert: "auth.userId != null",
    });
    expect(codes(findings)).toEqual(
      expect.arrayContaining([
        "error OWNER_NOT_PINNED List tenantId",
        "error OWNER_NOT_PINNED Member userId",
      ]),
    );
    const member = findings.find((f) => f.code === "OWNER_NOT_PINNED" && f.entity === "Member");
    expect(member?.witness?.data?.userId).not.toBe(member?.witness?.auth.userId);
    expect(member?.message).toContain("add `data.userId == auth.userId` to the insert rule");
  });

  it("catches an update that moves a row out of its tenant's reach", () => {
    const findings = lint(
      { ...LIST, allowUpdate: "auth.tenantId == existing.tenantId" },
      OWN_TODOS,
      MEMBER,
    );
    const moved = findings.find((f) => f.code === "ROW_CAN_MOVE");
    expect(moved).toMatchObject({ level: "error", entity: "List", field: "tenantId" });
    expect(moved?.witness?.data?.tenantId).not.toBe(moved?.witness?.existing?.tenantId);
    expect(moved?.message).toContain("`data.tenantId == existing.tenantId`");
  });

  it("catches an unindexed filter column (the seeded bug) and an unindexed lookup, with the index to add", () => {
    const findings = lint(
      LIST,
      {
        ...OWN_TODOS,
        allowRead:
          "auth.userId == data.ownerId || data.priority == 'high' || exists(Todo where listId == data.listId && title == 'x')",
      },
      MEMBER,
    );
    expect(codes(findings)).toEqual(
      expect.arrayContaining([
        "warning UNINDEXED_FILTER Todo priority",
        "warning UNINDEXED_LOOKUP Todo listId, title",
      ]),
    );
    const filter = findings.find((f) => f.code === "UNINDEXED_FILTER");
    expect(filter?.index).toEqual({
      manifest: { name: "by_priority", fields: ["priority"], unique: false },
      sql: 'CREATE INDEX "Todo_by_priority" ON "Todo" ("priority");',
    });
    expect(findings.find((f) => f.code === "UNINDEXED_LOOKUP")?.index?.sql).toBe(
      'CREATE INDEX "Todo_by_listId_title" ON "Todo" ("listId", "title");',
    );
  });

  it("says which entities anonymous callers can read", () => {
    const findings = lint(
      LIST,
      { ...OWN_TODOS, allowRead: "data.done || auth.userId == data.ownerId" },
      MEMBER,
    );
    const open = findings.find((f) => f.code === "PUBLIC_READ");
    expect(open).toMatchObject({ level: "info", entity: "Todo" });
    expect(open?.witness?.auth.userId).toBeNull();
    expect(open?.witness?.existing?.done).toBe(true);
    expect(formatLintFindings(findings)).toMatch(
      /info PUBLIC_READ Todo.allowRead\n {2}Todo is readable by everyone/,
    );
  });
});
