import { PolicyError } from "./errors.js";
import { isUnstorableText } from "./values.js";

/** One token of a policy expression. */
export type Token =
  | { readonly type: "ident"; readonly text: string; readonly start: number; readonly end: number }
  | {
      readonly type: "number";
      readonly value: number;
      readonly start: number;
      readonly end: number;
    }
  | {
      readonly type: "string";
      readonly value: string;
      readonly start: number;
      readonly end: number;
    }
  | { readonly type: "punct"; readonly text: Punct; readonly start: number; readonly end: number }
  | { readonly type: "eof"; readonly start: number; readonly end: number };

export type Punct = "(" | ")" | "." | "==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||" | "!";

const TWO_CHAR: readonly Punct[] = ["==", "!=", "<=", ">=", "&&", "||"];
const ONE_CHAR: readonly Punct[] = ["(", ")", ".", "<", ">", "!"];
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  "/": "/",
  n: "\n",
  r: "\r",
  t: "\t",
  b: "\b",
  f: "\f",
};

/** Throws a `POLICY_PARSE_ERROR` located at a 0-based offset. */
export function parseError(message: string, offset: number): never {
  const column = offset + 1;
  throw new PolicyError("POLICY_PARSE_ERROR", {
    message: `${message} at ${column}`,
    issues: [{ code: "POLICY_PARSE_ERROR", message: `${message} at ${column}`, column }],
  });
}

function readString(source: string, start: number): Token {
  const quote = source[start];
  let value = "";
  let i = start + 1;
  while (i < source.length) {
    const char = source[i];
    if (char === quote) {
      if (isUnstorableText(value)) {
        parseError("strings must not hold NUL characters or lone surrogates", start);
      }
      return { type: "string", value, start, end: i + 1 };
    }
    if (char === "\\") {
      const next = source[i + 1];
      if (next === "u") {
        const hex = source.slice(i + 2, i + 6);
        if (!/^[0-9A-Fa-f]{4}$/.test(hex)) parseError("expected 4 hex digits after \\u", i);
        value += String.fromCharCode(Number.parseInt(hex, 16));
        i += 6;
        continue;
      }
      const escaped = next === undefined ? undefined : ESCAPES[next];
      if (escaped === undefined) parseError(`unknown escape \\${next ?? ""}`, i);
      value += escaped;
      i += 2;
      continue;
    }
    value += char;
    i += 1;
  }
  return parseError(`expected closing ${quote}`, start);
}

/**
 * Splits a policy expression into tokens, ending with an `eof` token. Throws
 * `POLICY_PARSE_ERROR` for a character that starts no token, an unclosed or
 * badly escaped string, or a number too large to represent.
 */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const char = source[i] ?? "";
    if (char === " " || char === "\t" || char === "\n" || char === "\r") {
      i += 1;
      continue;
    }
    if (char === "'" || char === '"') {
      const token = readString(source, i);
      tokens.push(token);
      i = token.end;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(source);
    if (number !== null) {
      const value = Number(number[0]);
      if (!Number.isFinite(value)) parseError("number out of range", i);
      tokens.push({
        type: "number",
        value: value === 0 ? 0 : value,
        start: i,
        end: NUMBER.lastIndex,
      });
      i = NUMBER.lastIndex;
      continue;
    }
    IDENT.lastIndex = i;
    const ident = IDENT.exec(source);
    if (ident !== null) {
      tokens.push({ type: "ident", text: ident[0], start: i, end: IDENT.lastIndex });
      i = IDENT.lastIndex;
      continue;
    }
    const two = TWO_CHAR.find((p) => source.startsWith(p, i));
    const punct = two ?? ONE_CHAR.find((p) => p === char);
    if (punct === undefined) {
      if (char === "=") parseError("expected '==' (one '=' is not an operator)", i);
      if (char === "&") parseError("expected '&&'", i);
      if (char === "|") parseError("expected '||'", i);
      parseError(`unexpected character ${JSON.stringify(char)}`, i);
    }
    tokens.push({ type: "punct", text: punct, start: i, end: i + punct.length });
    i += punct.length;
  }
  tokens.push({ type: "eof", start: source.length, end: source.length });
  return tokens;
}
