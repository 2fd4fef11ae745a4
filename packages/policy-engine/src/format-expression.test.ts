import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Expr } from "./ast.js";
import { PolicyError } from "./errors.js";
import { formatPolicyExpression } from "./format-expression.js";
import { parsePolicyExpression } from "./parse-expression.js";
import { isUnstorableText } from "./values.js";

const NO_SPAN = { start: 0, end: 0 };

/** The tree without positions, for structural comparison. */
function strip(expr: Expr): unknown {
  switch (expr.kind) {
    case "literal":
      return { kind: expr.kind, value: expr.value };
    case "ref":
      return { kind: expr.kind, scope: expr.scope, name: expr.name };
    case "hasRole":
      return { kind: expr.kind, role: expr.role };
    case "hasEntitlement":
      return { kind: expr.kind, entitlement: expr.entitlement };
    case "compare":
      return { kind: expr.kind, op: expr.op, left: strip(expr.left), right: strip(expr.right) };
    case "and":
    case "or":
      return { kind: expr.kind, operands: expr.operands.map(strip) };
    case "not":
      return { kind: expr.kind, operand: strip(expr.operand) };
    case "exists":
      return {
        kind: expr.kind,
        entity: expr.entity,
        conditions: expr.conditions.map((c) => ({ field: c.field, value: strip(c.value) })),
      };
  }
}

const name = fc.stringMatching(/^[a-z][A-Za-z0-9_]{0,6}$/);
const text = fc.string({ unit: "binary", maxLength: 8 }).filter((s) => !isUnstorableText(s));
const number = fc
  .oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }))
  .map((n) => (n === 0 ? 0 : n));

const literal: fc.Arbitrary<Expr> = fc
  .oneof(text, number, fc.boolean(), fc.constant(null))
  .map((value): Expr => ({ kind: "literal", value, ...NO_SPAN }));
const ref: fc.Arbitrary<Expr> = fc
  .record({ scope: fc.constantFrom("auth", "data", "existing"), name })
  .map(({ scope, name: n }): Expr => ({ kind: "ref", scope, name: n, ...NO_SPAN }));
const hasRole: fc.Arbitrary<Expr> = text.map(
  (role): Expr => ({ kind: "hasRole", role, ...NO_SPAN }),
);
const hasEntitlement: fc.Arbitrary<Expr> = text.map(
  (entitlement): Expr => ({ kind: "hasEntitlement", entitlement, ...NO_SPAN }),
);
const value = fc.oneof(literal, ref, hasRole, hasEntitlement);

const { expr } = fc.letrec<{ expr: Expr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    value,
    fc
      .record({
        op: fc.constantFrom("==", "!=", "<", "<=", ">", ">=" as const),
        left: tie("expr"),
        right: tie("expr"),
      })
      .map(
        ({ op, left, right }): Expr => ({
          kind: "compare",
          op,
          opStart: 0,
          left,
          right,
          ...NO_SPAN,
        }),
      ),
    fc
      .record({
        kind: fc.constantFrom("and", "or" as const),
        operands: fc.array(tie("expr"), { minLength: 2, maxLength: 3 }),
      })
      .map(({ kind, operands }): Expr => ({ kind, operands, ...NO_SPAN })),
    tie("expr").map((operand): Expr => ({ kind: "not", operand, ...NO_SPAN })),
    fc
      .record({
        entity: fc.stringMatching(/^[A-Z][a-z]{0,5}$/),
        conditions: fc.array(fc.record({ field: name, value }), { minLength: 1, maxLength: 3 }),
      })
      .map(
        ({ entity, conditions }): Expr => ({
          kind: "exists",
          entity,
          entityStart: 0,
          conditions: conditions.map((c) => ({ ...c, ...NO_SPAN })),
          ...NO_SPAN,
        }),
      ),
  ),
}));

describe("formatPolicyExpression", () => {
  it.each([
    ["auth.userId==data.ownerId||(auth.isAdmin)", "auth.userId == data.ownerId || auth.isAdmin"],
    ["!(data.rank<1)", "!(data.rank < 1)"],
    ["(data.done || data.flag) && !data.done", "(data.done || data.flag) && !data.done"],
    ["data.done && (data.flag && auth.isAdmin)", "data.done && (data.flag && auth.isAdmin)"],
    ["data.title == 'it\\'s'", 'data.title == "it\'s"'],
    [
      "exists(Member where userId==auth.userId&&role=='editor')",
      'exists(Member where userId == auth.userId && role == "editor")',
    ],
  ])("prints %j as %j", (source, expected) => {
    expect(formatPolicyExpression(parsePolicyExpression(source))).toBe(expected);
  });

  it("round-trips: parsing the printed tree gives the same tree", () => {
    fc.assert(
      fc.property(expr, (tree) => {
        const printed = formatPolicyExpression(tree);
        fc.pre(printed.length <= 4096);
        expect(strip(parsePolicyExpression(printed))).toEqual(strip(tree));
      }),
      { numRuns: 300 },
    );
  });

  it("the parser fails only with PolicyError on arbitrary input", () => {
    const tokens = fc.constantFrom(
      "(",
      ")",
      "!",
      "&&",
      "||",
      "==",
      "<",
      "data.",
      "auth.",
      "x",
      "'",
      "1",
      " ",
      "exists(",
      "where",
      "\\",
    );
    const input = fc.oneof(
      fc.string(),
      fc.array(tokens, { maxLength: 30 }).map((t) => t.join("")),
    );
    fc.assert(
      fc.property(input, (source) => {
        try {
          parsePolicyExpression(source);
        } catch (error) {
          expect(error).toBeInstanceOf(PolicyError);
        }
      }),
      { numRuns: 500 },
    );
  });
});
