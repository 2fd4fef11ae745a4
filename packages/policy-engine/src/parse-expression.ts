import type { CompareOp, ExistsCondition, ExistsExpr, Expr, RefExpr } from "./ast.js";
import { PolicyError } from "./errors.js";
import { parseError, type Token, tokenize } from "./lexer.js";

/** Hard limits that keep hostile or runaway expressions from exhausting memory or the stack. */
export const POLICY_LIMITS = {
  /** Longest accepted expression, in UTF-16 code units. */
  maxLength: 4096,
  /** Deepest accepted nesting of parentheses, `!` and `exists(...)`. */
  maxDepth: 64,
} as const;

const COMPARE_OPS: ReadonlySet<string> = new Set(["==", "!=", "<", "<=", ">", ">="]);
const SCOPES: ReadonlySet<string> = new Set(["auth", "data", "existing", "room"]);

function limitError(message: string, offset: number): never {
  const column = offset + 1;
  const text = `${message} at ${column}`;
  throw new PolicyError("POLICY_LIMIT_EXCEEDED", {
    message: text,
    issues: [{ code: "POLICY_LIMIT_EXCEEDED", message: text, column }],
  });
}

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  private peek(): Token {
    const token = this.tokens[this.index] ?? this.tokens[this.tokens.length - 1];
    if (token === undefined) throw new Error("the token list is never empty");
    return token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.type !== "eof") this.index += 1;
    return token;
  }

  private isPunct(text: string): boolean {
    const token = this.peek();
    return token.type === "punct" && token.text === text;
  }

  private expect(text: string, what = `'${text}'`): Token {
    const token = this.peek();
    if ((token.type === "punct" || token.type === "ident") && token.text === text) {
      return this.next();
    }
    return parseError(`expected ${what}`, token.start);
  }

  private enter(offset: number): void {
    this.depth += 1;
    if (this.depth > POLICY_LIMITS.maxDepth) {
      limitError(`expression nests deeper than ${POLICY_LIMITS.maxDepth} levels`, offset);
    }
  }

  parseExpression(): Expr {
    const expr = this.parseOr();
    const token = this.peek();
    if (token.type !== "eof") {
      if (token.type === "punct" && COMPARE_OPS.has(token.text)) {
        parseError(
          "comparisons do not chain, expected '&&', '||' or end of expression",
          token.start,
        );
      }
      parseError("expected '&&', '||' or end of expression", token.start);
    }
    return expr;
  }

  private parseOr(): Expr {
    return this.parseLogical("or", "||", () => this.parseAnd());
  }

  private parseAnd(): Expr {
    return this.parseLogical("and", "&&", () => this.parseUnary());
  }

  private parseLogical(kind: "and" | "or", op: string, operand: () => Expr): Expr {
    const first = operand();
    if (!this.isPunct(op)) return first;
    const operands: Expr[] = [first];
    while (this.isPunct(op)) {
      this.next();
      operands.push(operand());
    }
    const last = operands[operands.length - 1] ?? first;
    return { kind, operands, start: first.start, end: last.end };
  }

  private parseUnary(): Expr {
    const token = this.peek();
    if (token.type === "punct" && token.text === "!") {
      this.next();
      this.enter(token.start);
      const operand = this.parseUnary();
      this.depth -= 1;
      return { kind: "not", operand, start: token.start, end: operand.end };
    }
    return this.parseComparison();
  }

  private parseComparison(): Expr {
    const left = this.parsePrimary();
    const token = this.peek();
    if (token.type !== "punct" || !COMPARE_OPS.has(token.text)) return left;
    this.next();
    const right = this.parsePrimary();
    return {
      kind: "compare",
      op: token.text as CompareOp,
      opStart: token.start,
      left,
      right,
      start: left.start,
      end: right.end,
    };
  }

  private parsePrimary(): Expr {
    const token = this.peek();
    if (token.type === "punct" && token.text === "(") {
      this.next();
      this.enter(token.start);
      const inner = this.parseOr();
      this.expect(")");
      this.depth -= 1;
      return inner;
    }
    if (token.type === "ident" && token.text === "exists") return this.parseExists();
    return this.parseValue("a value, a condition or '('");
  }

  /** A literal, `auth.*`, `auth.hasRole('r')`, `auth.hasEntitlement('e')`, `data.*` or `existing.*`. */
  private parseValue(what: string): Expr {
    const token = this.next();
    switch (token.type) {
      case "number":
        return { kind: "literal", value: token.value, start: token.start, end: token.end };
      case "string":
        return { kind: "literal", value: token.value, start: token.start, end: token.end };
      case "ident":
        if (token.text === "true" || token.text === "false") {
          const value = token.text === "true";
          return { kind: "literal", value, start: token.start, end: token.end };
        }
        if (token.text === "null") {
          return { kind: "literal", value: null, start: token.start, end: token.end };
        }
        if (SCOPES.has(token.text)) return this.parseRef(token);
        return parseError(
          `unknown name ${token.text}, expected auth.*, data.*, existing.*, exists(...) or a literal`,
          token.start,
        );
      default:
        return parseError(`expected ${what}`, token.start);
    }
  }

  private parseRef(scope: Token & { type: "ident" }): Expr {
    this.expect(".");
    const name = this.peek();
    if (name.type !== "ident")
      return parseError(`expected a name after ${scope.text}.`, name.start);
    this.next();
    if (scope.text === "auth" && this.isPunct("(")) {
      if (name.text === "hasRole" || name.text === "hasEntitlement") {
        return this.parseAuthCall(scope.start, name.text);
      }
      parseError(
        `auth.${name.text} is not a function (auth has hasRole('role') and hasEntitlement('id'))`,
        this.peek().start,
      );
    }
    if (this.isPunct("(")) {
      parseError(`${scope.text}.${name.text} is not a function`, this.peek().start);
    }
    if (this.isPunct(".")) {
      parseError(`${scope.text}.${name.text} has no members`, this.peek().start);
    }
    const refScope = scope.text as RefExpr["scope"];
    return { kind: "ref", scope: refScope, name: name.text, start: scope.start, end: name.end };
  }

  /** The `('<text>')` of `auth.hasRole` or `auth.hasEntitlement`; `start` is where `auth` starts. */
  private parseAuthCall(start: number, name: "hasRole" | "hasEntitlement"): Expr {
    this.next();
    const arg = this.peek();
    if (arg.type !== "string") {
      const what = name === "hasRole" ? "a quoted role name" : "a quoted entitlement id";
      return parseError(`expected ${what}`, arg.start);
    }
    this.next();
    const { end } = this.expect(")");
    return name === "hasRole"
      ? { kind: "hasRole", role: arg.value, start, end }
      : { kind: "hasEntitlement", entitlement: arg.value, start, end };
  }

  private parseExists(): ExistsExpr {
    const keyword = this.next();
    const open = this.expect("(");
    this.enter(open.start);
    const entity = this.peek();
    if (entity.type !== "ident") return parseError("expected an entity name", entity.start);
    this.next();
    this.expect("where");
    const conditions: ExistsCondition[] = [this.parseExistsCondition()];
    while (this.isPunct("&&")) {
      this.next();
      conditions.push(this.parseExistsCondition());
    }
    if (this.isPunct("||")) {
      parseError(
        "expected '&&' or ')' (exists(...) joins its conditions with && only)",
        this.peek().start,
      );
    }
    const close = this.expect(")", "'&&' or ')'");
    this.depth -= 1;
    return {
      kind: "exists",
      entity: entity.text,
      entityStart: entity.start,
      conditions,
      start: keyword.start,
      end: close.end,
    };
  }

  private parseExistsCondition(): ExistsCondition {
    const field = this.peek();
    if (field.type !== "ident") {
      return parseError("expected a field name of the entity", field.start);
    }
    this.next();
    if (this.isPunct(".")) {
      parseError(
        "expected '==' (name the entity's field alone, without a prefix)",
        this.peek().start,
      );
    }
    this.expect("==");
    const value = this.parseValue("a literal, auth.*, data.* or existing.*");
    return { field: field.text, value, start: field.start, end: value.end };
  }
}

/**
 * Parses a policy expression into its syntax tree (with source positions).
 * Throws a `PolicyError` with code `POLICY_PARSE_ERROR` naming the expected
 * token and its 1-based column, or `POLICY_LIMIT_EXCEEDED` for an expression
 * longer than `POLICY_LIMITS.maxLength` or nested deeper than
 * `POLICY_LIMITS.maxDepth`. Names are not checked here; see `compilePolicies`.
 *
 * @example
 * const expr = parsePolicyExpression("auth.userId == data.ownerId");
 * expr.kind; // "compare"
 */
export function parsePolicyExpression(source: string): Expr {
  if (source.length > POLICY_LIMITS.maxLength) {
    limitError(
      `expression is longer than ${POLICY_LIMITS.maxLength} characters`,
      POLICY_LIMITS.maxLength,
    );
  }
  return new Parser(tokenize(source)).parseExpression();
}
