import { thrownBy } from "@svc/tooling/thrown";
import { describe, expect, it } from "vitest";
import { fixtureManifest, manifestWithRule } from "../test/fixture-manifest.js";
import { compilePolicies, rulesFor } from "./compile-policies.js";
import { PolicyError, renderPolicyIssue } from "./errors.js";

function compileError(manifest: Parameters<typeof compilePolicies>[0]): PolicyError {
  return thrownBy(PolicyError, () => compilePolicies(manifest));
}

type Rule = "allowRead" | "allowInsert" | "allowUpdate" | "allowDelete";

/** What the compiler lists when a rule names something `auth` does not have. */
const AUTH_NAMES =
  "(auth has userId, tenantId, isAdmin, isGuest, hasRole('role') and hasEntitlement('id'))";
const DID_YOU_MEAN_ENTITLEMENT = "(did you mean auth.hasEntitlement('id')?)";

/** Read rules that do not compile, with the one message each gets. */
const badReadRules: [rule: string, message: string][] = [
  ["auth.userId == data.owner", "unknown field data.owner at 16"],
  ["auth.emailVerified", `unknown auth.emailVerified ${AUTH_NAMES} at 1`],
  ["auth.roles == 'x'", `unknown auth.roles ${AUTH_NAMES} at 1`],
  ["auth.hasRole", "auth.hasRole needs a role, as in auth.hasRole('admin') at 1"],
  ["auth.entitlements == 'x'", `unknown auth.entitlements ${DID_YOU_MEAN_ENTITLEMENT} at 1`],
  [
    "auth.hasEntitlement",
    "auth.hasEntitlement needs an entitlement id, as in auth.hasEntitlement('price_pro') at 1",
  ],
  [
    "auth.hasEntitlements && data.done",
    `unknown auth.hasEntitlements ${DID_YOU_MEAN_ENTITLEMENT} at 1`,
  ],
  [
    "auth.hasEntitlements('price_pro')",
    "auth.hasEntitlements is not a function (auth has hasRole('role') and hasEntitlement('id')) at 21",
  ],
  ["auth.hasEntitlement()", "expected a quoted entitlement id at 21"],
  ["auth.hasEntitlement(1)", "expected a quoted entitlement id at 21"],
  [
    "data.title == auth.hasEntitlement('price_pro')",
    'cannot compare string data.title with auth.hasEntitlement("price_pro") at 12',
  ],
  ["auth.hasEntitlement('price_pro') < true", "cannot order bool values with < at 34"],
  ["exists(Nope where id == data.listId)", "unknown entity Nope in exists at 8"],
  ["exists(Member where user == auth.userId)", "unknown field Member.user at 21"],
  ["exists(Member where userId == 3)", "cannot compare string Member.userId with number 3 at 21"],
  ["data.title == 3", "cannot compare string data.title with number 3 at 12"],
  ["data.rank == 'x'", 'cannot compare int data.rank with string "x" at 11'],
  ["data.done < true", "cannot order bool values with < at 11"],
  ["data.priority < 'low'", "cannot order enum data.priority with < at 15"],
  ["data.priority == 'urgent'", '"urgent" is not a value of Todo.priority (low, high) at 18'],
  ["data.rank < null", "cannot order null with < at 11"],
  ["data.meta == null", "json data.meta is a json field and cannot be compared at 11"],
  [
    "data.createdAt < 'yesterday'",
    '"yesterday" is not an ISO 8601 date-time with a zone, such as "2024-05-01T12:00:00Z" at 18',
  ],
  ["data.createdAt < data.title", "cannot compare a datetime with string data.title at 16"],
  ["data.title && data.done", "expected a condition, got string data.title at 1"],
  ["!data.rank", "expected a condition, got int data.rank at 2"],
  ["null", "expected a condition, got null at 1"],
  ["'yes'", 'expected a condition, got string "yes" at 1'],
  [
    "(data.rank == 1) == true",
    "cannot compare a condition (combine conditions with &&, || and !) at 2",
  ],
  ["auth.userId == (data.ownerId", "expected ')' at 29"],
  ["(".repeat(70), "expression nests deeper than 64 levels at 65"],
];

describe("compilePolicies", () => {
  it("compiles every rule of every policy, by entity and action, in manifest order", () => {
    const compiled = compilePolicies(
      fixtureManifest([
        {
          name: "own",
          entity: "Todo",
          allowRead: "auth.userId == data.ownerId",
          allowDelete: "auth.userId == existing.ownerId",
        },
        { name: "admin", entity: "Todo", allowRead: "auth.isAdmin" },
      ]),
    );
    expect(rulesFor(compiled, "Todo", "read").map((rule) => rule.policy)).toEqual(["own", "admin"]);
    expect(rulesFor(compiled, "Todo", "delete")).toHaveLength(1);
    expect(rulesFor(compiled, "Todo", "insert")).toEqual([]);
    expect(rulesFor(compiled, "Secret", "read")).toEqual([]);
    expect(() => rulesFor(compiled, "Nope", "read")).toThrowError(
      expect.objectContaining({ code: "UNKNOWN_ENTITY" }),
    );
  });

  it.each<[string, Rule, string]>([
    ...badReadRules.map(([rule, message]): [string, Rule, string] => [rule, "allowRead", message]),
    // Each action sees only the records it has: no `existing` on insert or read, no `data` on delete.
    [
      "auth.userId == existing.ownerId",
      "allowInsert",
      "existing is not available in allowInsert (use data) at 16",
    ],
    ["existing.done", "allowRead", "existing is not available in allowRead (use data) at 1"],
    ["data.done", "allowDelete", "data is not available in allowDelete (use existing) at 1"],
  ])("rejects %j in %s: %s", (rule, key, message) => {
    const error = compileError(manifestWithRule(rule, key));
    expect(error.code).toBe("INVALID_POLICIES");
    expect(error.issues).toHaveLength(1);
    const action = key.slice("allow".length).toLowerCase();
    expect(error.issues[0]).toMatchObject({ message, policy: "p", entity: "Todo", action });
    expect(error.message).toBe(
      `The manifest's policies are invalid: policy "p" (Todo.${key}): ${message}`,
    );
  });

  it("suggests the nearest field, entity or auth name, and shows the rule with a caret", () => {
    const error = compileError(
      fixtureManifest([
        { name: "typos", entity: "Todo", allowRead: "auth.userId == data.titel" },
        { name: "lookup", entity: "Todo", allowInsert: "exists(Tood where id == data.listId)" },
        { name: "who", entity: "Todo", allowDelete: "auth.userID == existing.title" },
        { name: "far", entity: "Todo", allowUpdate: "data.zzzzzzzz == 1" },
      ]),
    );
    const messages = error.issues.map((issue) => issue.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        "unknown field data.titel (did you mean data.title?) at 16",
        "unknown entity Tood in exists (did you mean Todo?) at 8",
        "unknown auth.userID (did you mean auth.userId?) at 1",
        "unknown field data.zzzzzzzz at 1",
      ]),
    );
    const typo = error.issues.find((issue) => issue.policy === "typos");
    expect(typo && renderPolicyIssue(typo)).toBe(
      [
        'policy "typos" (Todo.allowRead): unknown field data.titel (did you mean data.title?) at 16',
        "    auth.userId == data.titel",
        "                   ^",
      ].join("\n"),
    );
  });

  it("names the policy, the action and the column of the brief's example", () => {
    const error = compileError(
      fixtureManifest([
        { name: "own todos", entity: "Todo", allowRead: "auth.userId == data.owner" },
      ]),
    );
    expect(error.message).toContain(
      'policy "own todos" (Todo.allowRead): unknown field data.owner at 16',
    );
    expect(error.issues[0]).toMatchObject({ code: "POLICY_TYPE_ERROR", column: 16 });
  });

  it("lists every problem of every policy in one error, each with its own code", () => {
    const error = compileError(
      fixtureManifest([
        {
          name: "a",
          entity: "Todo",
          allowRead: "data.nope == auth.nope",
          allowInsert: "(data.done",
        },
        {
          name: "b",
          entity: "List",
          allowDelete: "data.archived",
          allowUpdate: "existing.archived",
        },
      ]),
    );
    expect(
      error.issues.map((issue) => [issue.policy, issue.action, issue.code, issue.column]),
    ).toEqual([
      ["a", "read", "POLICY_TYPE_ERROR", 1],
      ["a", "read", "POLICY_TYPE_ERROR", 14],
      ["a", "insert", "POLICY_PARSE_ERROR", 11],
      ["b", "delete", "POLICY_TYPE_ERROR", 1],
    ]);
    expect(error.message.split("; ")).toHaveLength(4);
  });

  it("reports a policy on an entity the manifest lacks when the manifest skipped validation", () => {
    const manifest = {
      ...fixtureManifest(),
      policies: [{ name: "ghost", entity: "Ghost", allowRead: "true" }],
    };
    expect(compileError(manifest).issues[0]).toMatchObject({
      policy: "ghost",
      message: "unknown entity Ghost at 1",
    });
  });

  it.each([
    "data.createdAt < '2024-05-01T12:00:00+02:00'",
    "'2024-05-01T12:00:00+02:00' > data.createdAt",
  ])("normalizes a date-time literal to UTC in %j", (rule) => {
    const [compiled] = rulesFor(compilePolicies(manifestWithRule(rule)), "Todo", "read");
    const condition = compiled?.condition;
    expect(condition?.kind).toBe("compare");
    if (condition?.kind !== "compare") return;
    const literal = [condition.left, condition.right].find((side) => side.kind === "literal");
    expect(literal).toMatchObject({ value: "2024-05-01T10:00:00.000Z" });
    expect(condition.as).toBe("datetime");
  });

  it.each([
    "auth.userId == data.ownerId && data.listId != null",
    "data.id == auth.userId || auth.hasRole('admin')",
    "auth.hasEntitlement('price_pro') && auth.userId == data.ownerId",
    "data.done == auth.hasEntitlement('prod_team') || !auth.hasEntitlement('price_free')",
    "exists(List where id == data.listId && archived == auth.hasEntitlement('price_pro'))",
    "exists(Member where listId == data.listId && userId == auth.userId && role == 'editor')",
    "data.rank < data.score || data.rank >= 2.5",
    "data.priority == data.priority && data.title <= 'm'",
    "data.flag == null || !data.flag",
    "null == null",
  ])("accepts %j", (rule) => {
    expect(() => compilePolicies(manifestWithRule(rule))).not.toThrow();
  });
});
