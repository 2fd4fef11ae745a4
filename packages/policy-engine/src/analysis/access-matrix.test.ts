import { describe, expect, it } from "vitest";
import { fixtureManifest } from "../../test/fixture-manifest.js";
import { compilePolicies } from "../compile-policies.js";
import { accessMatrix } from "./access-matrix.js";

const compiled = compilePolicies(
  fixtureManifest([
    {
      name: "own todos",
      entity: "Todo",
      allowRead: "auth.userId == data.ownerId || auth.hasRole('auditor')",
      allowInsert: "auth.userId != null && !auth.isGuest",
      allowDelete: "auth.userId == existing.ownerId",
    },
  ]),
);

describe("accessMatrix", () => {
  it("gives each kind of caller allow, some or deny per action, with the deciding rule", () => {
    const matrix = accessMatrix(compiled, "Todo");
    const table = Object.fromEntries(
      matrix.rows.map((row) => [row.caller.label, row.cells.map((cell) => cell.verdict).join(" ")]),
    );
    expect(table).toEqual({
      anonymous: "deny deny deny deny",
      guest: "some deny deny some",
      "user u1 (or their API key)": "some allow deny some",
      "u1, with role auditor": "allow allow deny some",
      "admin token": "allow allow allow allow",
    });
    const user = matrix.rows[2]?.cells;
    expect(user?.[0]?.reason).toBe(
      'allowed by policy "own todos" (Todo.allowRead): auth.userId == data.ownerId holds',
    );
    expect(user?.[0]?.example?.existing?.ownerId).toBe("u1");
    expect(user?.[2]?.reason).toBe(
      "denied: no policy of Todo has an allowUpdate rule (only the admin token may update)",
    );
    expect(matrix.rows[4]?.cells[2]?.reason).toBe("allowed: the admin token bypasses every policy");
  });
});
