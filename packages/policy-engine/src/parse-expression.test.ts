import { thrownBy } from "@svc/tooling/thrown";
import { describe, expect, it } from "vitest";
import type { Expr } from "./ast.js";
import { PolicyError } from "./errors.js";
import { formatPolicyExpression } from "./format-expression.js";
import { POLICY_LIMITS, parsePolicyExpression } from "./parse-expression.js";

function errorOf(source: string): PolicyError {
  return thrownBy(PolicyError, () => parsePolicyExpression(source));
}

/** The tree's shape in canonical syntax, with every compound node parenthesized. */
function shape(expr: Expr): string {
  switch (expr.kind) {
    case "and":
    case "or":
      return `(${expr.operands.map(shape).join(expr.kind === "and" ? " && " : " || ")})`;
    case "not":
      return `!${shape(expr.operand)}`;
    case "compare":
      return `(${shape(expr.left)} ${expr.op} ${shape(expr.right)})`;
    default:
      return formatPolicyExpression(expr);
  }
}

describe("parsePolicyExpression", () => {
  it.each([
    ["auth.isAdmin || auth.isGuest && data.done", "(auth.isAdmin || (auth.isGuest && data.done))"],
    [
      "(auth.isAdmin || auth.isGuest) && data.done",
      "((auth.isAdmin || auth.isGuest) && data.done)",
    ],
    ["!data.done && data.flag", "(!data.done && data.flag)"],
    ["!data.rank == 1", "!(data.rank == 1)"],
    ["!!data.done", "!!data.done"],
  ])("gives %j the precedence || < && < ! < comparison", (source, expected) => {
    expect(shape(parsePolicyExpression(source))).toBe(expected);
  });

  it("flattens chains of && and || into one node", () => {
    const expr = parsePolicyExpression("data.done && data.flag && auth.isAdmin || auth.isGuest");
    expect(expr.kind).toBe("or");
    if (expr.kind !== "or") return;
    expect(expr.operands[0]?.kind).toBe("and");
    if (expr.operands[0]?.kind !== "and") return;
    expect(expr.operands[0].operands).toHaveLength(3);
  });

  it("records 0-based start and end offsets on every node", () => {
    const expr = parsePolicyExpression("auth.userId == data.ownerId");
    expect(expr).toMatchObject({
      kind: "compare",
      op: "==",
      opStart: 12,
      start: 0,
      end: 27,
      left: { kind: "ref", scope: "auth", name: "userId", start: 0, end: 11 },
      right: { kind: "ref", scope: "data", name: "ownerId", start: 15, end: 27 },
    });
  });

  it("parses literals: numbers, both quote styles with escapes, booleans and null", () => {
    const literal = (source: string): unknown => {
      const expr = parsePolicyExpression(`data.x == ${source}`);
      return expr.kind === "compare" && expr.right.kind === "literal"
        ? expr.right.value
        : undefined;
    };
    expect(literal("-5")).toBe(-5);
    expect(literal("1.5e3")).toBe(1500);
    expect(literal("1e+21")).toBe(1e21);
    expect(literal("-0")).toBe(0);
    expect(literal(`'it\\'s'`)).toBe("it's");
    expect(literal(`"say \\"hi\\"\\n\\t\\\\"`)).toBe('say "hi"\n\t\\');
    expect(literal(`"\\u00e9\\ud83d\\ude00"`)).toBe("é😀");
    expect(literal("true")).toBe(true);
    expect(literal("false")).toBe(false);
    expect(literal("null")).toBe(null);
  });

  it("parses auth.hasEntitlement like auth.hasRole, with its span", () => {
    const expr = parsePolicyExpression("auth.hasEntitlement('price_pro') && !auth.hasRole('x')");
    expect(formatPolicyExpression(expr)).toBe(
      'auth.hasEntitlement("price_pro") && !auth.hasRole("x")',
    );
    expect(expr).toMatchObject({
      operands: [
        { kind: "hasEntitlement", entitlement: "price_pro", start: 0, end: 32 },
        { kind: "not", operand: { kind: "hasRole", role: "x" } },
      ],
    });
  });

  it("parses exists with several conditions and auth.hasRole", () => {
    const expr = parsePolicyExpression(
      "exists(Member where listId == data.listId && userId == auth.userId) || auth.hasRole('admin')",
    );
    expect(formatPolicyExpression(expr)).toBe(
      'exists(Member where listId == data.listId && userId == auth.userId) || auth.hasRole("admin")',
    );
    expect(expr).toMatchObject({
      operands: [
        { kind: "exists", entity: "Member", entityStart: 7, start: 0 },
        { kind: "hasRole", role: "admin" },
      ],
    });
  });

  it.each([
    ["(auth.isAdmin", "expected ')' at 14"],
    ["auth.userId == (data.ownerId || auth.isAdmin", "expected ')' at 45"],
    ["auth.userId = data.ownerId", "expected '==' (one '=' is not an operator) at 13"],
    ["data.done & data.flag", "expected '&&' at 11"],
    ["data.done | data.flag", "expected '||' at 11"],
    ["", "expected a value, a condition or '(' at 1"],
    ["data.done &&", "expected a value, a condition or '(' at 13"],
    ["data.done data.flag", "expected '&&', '||' or end of expression at 11"],
    [
      "data.rank == 1 == 2",
      "comparisons do not chain, expected '&&', '||' or end of expression at 16",
    ],
    ["data.rank < !data.done", "expected a value, a condition or '(' at 13"],
    [
      "owner == 1",
      "unknown name owner, expected auth.*, data.*, existing.*, exists(...) or a literal at 1",
    ],
    ["data.", "expected a name after data. at 6"],
    ["data.meta.x == 1", "data.meta has no members at 10"],
    ["data.title('x')", "data.title is not a function at 11"],
    ["auth.hasRole(admin)", "expected a quoted role name at 14"],
    ["auth.hasEntitlement()", "expected a quoted entitlement id at 21"],
    ["auth.hasEntitlement(42)", "expected a quoted entitlement id at 21"],
    ["auth.hasEntitlement(price_pro)", "expected a quoted entitlement id at 21"],
    ["auth.hasEntitlement('a' 'b')", "expected ')' at 25"],
    [
      "auth.hasEntitlements('price_pro')",
      "auth.hasEntitlements is not a function (auth has hasRole('role') and hasEntitlement('id')) at 21",
    ],
    ["data.title == 'abc", "expected closing ' at 15"],
    ["data.title == 'a\\qb'", "unknown escape \\q at 17"],
    ["data.title == '\\u12'", "expected 4 hex digits after \\u at 16"],
    ["data.title == '\\u0000'", "strings must not hold NUL characters or lone surrogates at 15"],
    ["data.title == '\\ud800'", "strings must not hold NUL characters or lone surrogates at 15"],
    ["data.rank == 1e999", "number out of range at 14"],
    ["data.rank == #", 'unexpected character "#" at 14'],
    ["exists(Member listId == data.listId)", "expected 'where' at 15"],
    [
      "exists(Member where listId == data.listId || userId == auth.userId)",
      "expected '&&' or ')' (exists(...) joins its conditions with && only) at 43",
    ],
    [
      "exists(Member where Member.listId == data.listId)",
      "expected '==' (name the entity's field alone, without a prefix) at 27",
    ],
    [
      "exists(Member where listId == (data.listId))",
      "expected a literal, auth.*, data.* or existing.* at 31",
    ],
    ["exists(Member where listId == data.listId", "expected '&&' or ')' at 42"],
  ])("rejects %j with %j", (source, message) => {
    const error = errorOf(source);
    expect(error.code).toBe("POLICY_PARSE_ERROR");
    expect(error.message).toBe(message);
    expect(error.issues).toEqual([
      { code: "POLICY_PARSE_ERROR", message, column: expect.any(Number) },
    ]);
  });

  it("rejects an expression longer than the length limit before lexing it", () => {
    // 100,000 open parentheses: must fail fast on length, never recurse.
    const error = errorOf("(".repeat(100_000));
    expect(error.code).toBe("POLICY_LIMIT_EXCEEDED");
    expect(error.message).toBe(
      `expression is longer than ${POLICY_LIMITS.maxLength} characters at 4097`,
    );
  });

  it("rejects nesting deeper than the depth limit, for parentheses, ! and exists alike", () => {
    const depth = POLICY_LIMITS.maxDepth;
    expect(() =>
      parsePolicyExpression(`${"(".repeat(depth)}auth.isAdmin${")".repeat(depth)}`),
    ).not.toThrow();
    const parens = errorOf(`${"(".repeat(depth + 1)}auth.isAdmin${")".repeat(depth + 1)}`);
    expect(parens.code).toBe("POLICY_LIMIT_EXCEEDED");
    expect(parens.message).toBe(`expression nests deeper than ${depth} levels at ${depth + 1}`);
    expect(errorOf(`${"!".repeat(depth + 1)}auth.isAdmin`).code).toBe("POLICY_LIMIT_EXCEEDED");
    const mixed = `${"!(".repeat(depth / 2)}exists(Member where userId == auth.userId)${")".repeat(depth / 2)}`;
    expect(errorOf(mixed).code).toBe("POLICY_LIMIT_EXCEEDED");
    // 4,000 unclosed parentheses fit the length limit but not the depth limit.
    expect(errorOf("(".repeat(4000)).code).toBe("POLICY_LIMIT_EXCEEDED");
  });

  it("accepts a long flat chain within the length limit without deep recursion", () => {
    const source = Array.from({ length: 300 }, () => "data.done").join(" && ");
    expect(source.length).toBeLessThanOrEqual(POLICY_LIMITS.maxLength);
    const expr = parsePolicyExpression(source);
    expect(expr.kind === "and" ? expr.operands.length : 0).toBe(300);
  });
});
