import type { PolicyDef } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { fixtureManifest } from "../../test/fixture-manifest.js";
import { OWN_TODOS } from "../../test/own-todos.js";
import { compilePolicies } from "../compile-policies.js";
import { diffPolicies } from "./diff-policies.js";
import { formatPolicyDiff } from "./format-analysis.js";

const compile = (...policies: PolicyDef[]) => compilePolicies(fixtureManifest(policies));

function change(before: PolicyDef[], after: PolicyDef[], action = "read") {
  const diff = diffPolicies(compile(...before), compile(...after));
  return { diff, item: diff.actions.find((a) => a.entity === "Todo" && a.action === action) };
}

describe("diffPolicies", () => {
  it("says same, without searching, when nothing changed", () => {
    const { diff } = change([OWN_TODOS], [OWN_TODOS]);
    expect(diff.widened).toBe(false);
    expect(diff.actions.every((a) => a.change === "same" && a.unchanged)).toBe(true);
    expect(formatPolicyDiff(diff)).toBe(
      "no access changed; 16 entity actions the same (16 with unchanged rules, 0 searched)\n",
    );
  });

  it("finds a widened read with a witness: a caller and a row the new rule admits", () => {
    const { diff, item } = change(
      [OWN_TODOS],
      [{ ...OWN_TODOS, allowRead: "auth.userId != null" }],
    );
    expect(diff.widened).toBe(true);
    expect(item?.change).toBe("widened");
    const witness = item?.widened;
    expect(witness?.auth.userId).not.toBeNull();
    expect(witness?.existing?.ownerId).not.toBe(witness?.auth.userId);
    expect(witness?.before.reason).toContain("auth.userId == data.ownerId is false");
    expect(witness?.after.reason).toContain("auth.userId != null holds");
    expect(item?.search?.coverage.exhaustive).toBe(true);
    const text = formatPolicyDiff(diff);
    expect(text).toContain("Todo.allowRead: widened");
    expect(text).toContain('admitted now, refused before: caller {"userId":"u1"}');
    expect(text).toMatch(/searched \d+ callers/);
  });

  it("a rewrite that means the same is same, after a search", () => {
    const { item } = change(
      [OWN_TODOS],
      [{ ...OWN_TODOS, allowRead: "data.ownerId == auth.userId && !(auth.userId == null)" }],
    );
    expect(item).toMatchObject({ change: "same", unchanged: false });
  });

  it("finds a narrowing, and both directions at once", () => {
    const narrowed = change(
      [OWN_TODOS],
      [{ ...OWN_TODOS, allowRead: "auth.userId == data.ownerId && data.done" }],
    );
    expect(narrowed.item?.change).toBe("narrowed");
    expect(narrowed.item?.narrowed?.existing?.done).toBe(false);
    expect(narrowed.diff.widened).toBe(false);
    const both = change(
      [OWN_TODOS],
      [{ ...OWN_TODOS, allowRead: "auth.userId != data.ownerId && auth.userId != null" }],
    );
    expect(both.item?.change).toBe("changed");
    expect(both.diff.widened).toBe(true);
  });

  it("sees a read gate change widen updates, and an exists(...) lookup widen reads", () => {
    const shared: PolicyDef = {
      ...OWN_TODOS,
      allowRead:
        "auth.userId == data.ownerId || exists(Member where listId == data.listId && userId == auth.userId)",
    };
    const reads = change([OWN_TODOS], [shared]);
    expect(reads.item?.change).toBe("widened");
    expect(reads.item?.widened?.stored.Member).toHaveLength(1);
    const updates = change(
      [{ ...OWN_TODOS, allowUpdate: "auth.userId != null" }],
      [{ ...shared, allowUpdate: "auth.userId != null" }],
      "update",
    );
    expect(updates.item?.change).toBe("widened");
    expect(updates.item?.widened?.after.reason).toContain("Todo.allowUpdate");
  });

  it("counts an entity that gained a policy as widened, and a dropped owner flag on insert", () => {
    const { diff } = change(
      [OWN_TODOS],
      [OWN_TODOS, { name: "secrets", entity: "Secret", allowRead: "auth.userId != null" }],
    );
    expect(diff.actions.find((a) => a.entity === "Secret" && a.action === "read")?.change).toBe(
      "widened",
    );
    const before = fixtureManifest([OWN_TODOS]);
    const todo = before.entities.find((entity) => entity.name === "Todo");
    const after = {
      ...before,
      entities: before.entities.map((entity) =>
        entity === todo
          ? {
              ...entity,
              fields: entity.fields.map((f) => (f.name === "ownerId" ? { ...f, owner: false } : f)),
            }
          : entity,
      ),
    };
    const insert = diffPolicies(compilePolicies(before), compilePolicies(after)).actions.find(
      (a) => a.entity === "Todo" && a.action === "insert",
    );
    expect(insert?.change).toBe("widened");
    expect(insert?.widened?.before.reason).toContain("OWNER_MISMATCH");
  });
});
