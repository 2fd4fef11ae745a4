import fc from "fast-check";
import type { PolicyAuth, PolicyRow } from "../src/index.js";

/** Record ids: a small pool so `data.id == data.listId` and friends sometimes hold. */
export const ID_POOL = ["a", "b", "c", "d", "e", "f"].map((c) => c.repeat(40));

// Edge cases for text order: case, accents, the last BMP code point vs an astral one.
const TEXTS = [
  "",
  "a",
  "B",
  "b",
  "ab",
  "u1",
  "u2",
  "t1",
  "low",
  "high",
  "editor",
  "é",
  "e\u0301",
  "\uFFFF",
  "😀",
  "Z",
];
const USERS = ["u1", "u2", "u3", ""];
const INTS = [-3, 0, 1, 2, 3, 9007199254740991, -9007199254740991];
const FLOATS = [0, 0.1, 0.5, 1, 1.5, 2, -2.5, 1e21, -1e-7, 3, 0.30000000000000004];
const NUMBER_LITERALS = [
  "0",
  "1",
  "2",
  "2.0",
  "1.5",
  "-2.5",
  "0.1",
  "3",
  "-1e-7",
  "1e21",
  "9007199254740992",
  "9007199254740991",
  "1e300",
  "-3",
];
const DATETIMES = [
  "2024-05-01T10:00:00.000Z",
  "2024-05-01T10:00:00.001Z",
  "2024-05-01T09:59:59.999Z",
  "1999-12-31T23:59:59.999Z",
  "0001-01-01T00:00:00.000Z",
  "9999-12-31T23:59:59.999Z",
];
const DATETIME_LITERALS = [
  "'2024-05-01T12:00:00+02:00'",
  "'2024-05-01T10:00:00Z'",
  "'2000-01-01T00:00:00.5Z'",
  "'1999-12-31T23:59:59.999Z'",
];

const quote = (text: string): string => JSON.stringify(text);
const nullable = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.option(arb, { nil: null, freq: 3 });
const noNegativeZero = (n: number): number => (n === 0 ? 0 : n);

const intValue = fc
  .oneof(fc.constantFrom(...INTS), fc.integer({ min: -5, max: 5 }))
  .map(noNegativeZero);
const floatValue = fc
  .oneof(fc.constantFrom(...FLOATS), fc.double({ min: -10, max: 10, noNaN: true }))
  .map(noNegativeZero);

const todoRow = fc.record({
  title: fc.constantFrom(...TEXTS),
  done: fc.boolean(),
  ownerId: fc.constantFrom(...USERS),
  listId: nullable(fc.constantFrom(...ID_POOL)),
  priority: fc.constantFrom("low", "high"),
  createdAt: fc.constantFrom(...DATETIMES),
  dueAt: nullable(fc.constantFrom(...DATETIMES)),
  rank: nullable(intValue),
  score: nullable(floatValue),
  note: nullable(fc.constantFrom(...TEXTS)),
  flag: nullable(fc.boolean()),
  meta: nullable(fc.constantFrom({ a: 1 }, [1, 2], "x")),
});
const listRow = fc.record({
  title: fc.constantFrom(...TEXTS),
  ownerId: fc.constantFrom(...USERS),
  tenantId: nullable(fc.constantFrom("t1", "t2", "u1")),
  archived: fc.boolean(),
});
const memberRow = fc.record({
  userId: fc.constantFrom(...USERS),
  listId: fc.constantFrom(...ID_POOL),
  role: fc.constantFrom("viewer", "editor"),
});

function withIds<T extends object>(
  row: fc.Arbitrary<T>,
  max: number,
): fc.Arbitrary<(T & { id: string })[]> {
  return fc
    .uniqueArray(fc.constantFrom(...ID_POOL), { maxLength: max })
    .chain((ids) => fc.tuple(...ids.map((id) => row.map((r) => ({ id, ...r })))));
}

/** Rows of the three fixture entities the rules read. */
export type Dataset = {
  readonly Todo: readonly PolicyRow[];
  readonly List: readonly PolicyRow[];
  readonly Member: readonly PolicyRow[];
};

export const dataset: fc.Arbitrary<Dataset> = fc.record({
  Todo: withIds(todoRow, 6),
  List: withIds(listRow, 4),
  Member: withIds(memberRow, 5),
});

export const auth: fc.Arbitrary<PolicyAuth> = fc.record({
  userId: fc.constantFrom(null, "u1", "u2", "", "a"),
  tenantId: fc.constantFrom(null, "t1", "u1"),
  roles: fc.subarray(["x", "admin"]),
  entitlements: fc.subarray(["price_pro", "prod_team", "x"]),
  isAdmin: fc.boolean(),
  isGuest: fc.boolean(),
});

/** A text operand; `values` for enum fields, whose literals must be one of them. */
interface TextOperand {
  readonly source: string;
  readonly values?: readonly string[];
  readonly literal?: boolean;
}

const PRIORITY = ["low", "high"];
const textOperand: fc.Arbitrary<TextOperand> = fc.oneof(
  fc.constantFrom<TextOperand>(
    { source: "data.title" },
    { source: "data.ownerId" },
    { source: "data.note" },
    { source: "data.listId" },
    { source: "data.id" },
    { source: "data.priority", values: PRIORITY },
    { source: "auth.userId" },
    { source: "auth.tenantId" },
  ),
  fc
    .constantFrom(...TEXTS, ...ID_POOL.slice(0, 2))
    .map((t) => ({ source: quote(t), literal: true })),
);

const textPair = fc.tuple(textOperand, textOperand, fc.nat()).map(([left, right, pick]) => {
  // An enum compared with a literal needs one of its values.
  const fix = (a: TextOperand, b: TextOperand): TextOperand => {
    if (a.values === undefined || b.literal !== true) return b;
    return { source: quote(a.values[pick % a.values.length] ?? ""), literal: true };
  };
  return [fix(right, left), fix(left, right)] as const;
});

const numberOperand = fc.oneof(
  fc.constantFrom("data.rank", "data.score"),
  fc.constantFrom(...NUMBER_LITERALS),
);
const datetimeOperand = fc.oneof(
  fc.constantFrom("data.createdAt", "data.dueAt"),
  fc.constantFrom(...DATETIME_LITERALS),
);
const boolOperand = fc.constantFrom(
  "data.done",
  "data.flag",
  "auth.isAdmin",
  "auth.isGuest",
  "auth.hasRole('x')",
  "auth.hasEntitlement('price_pro')",
  "auth.hasEntitlement('prod_team')",
  "true",
  "false",
);
const anyOp = fc.constantFrom("==", "!=", "<", "<=", ">", ">=");
const eqOp = fc.constantFrom("==", "!=");

const textCompare = fc.tuple(textPair, anyOp).map(([[left, right], op]) => {
  // Enums do not order; fall back to equality for them.
  const enumSide = left.values !== undefined || right.values !== undefined;
  return `${left.source} ${enumSide && op !== "==" && op !== "!=" ? "==" : op} ${right.source}`;
});
const numberCompare = fc
  .tuple(numberOperand, anyOp, numberOperand)
  .map(([a, op, b]) => `${a} ${op} ${b}`);
const datetimeCompare = fc
  .tuple(datetimeOperand, anyOp, datetimeOperand)
  .map(([a, op, b]) => `${a} ${op} ${b}`);
const boolCompare = fc.tuple(boolOperand, eqOp, boolOperand).map(([a, op, b]) => `${a} ${op} ${b}`);
const nullTest = fc
  .tuple(
    fc.constantFrom(
      "data.title",
      "data.note",
      "data.listId",
      "data.rank",
      "data.score",
      "data.flag",
      "data.dueAt",
      "auth.userId",
      "auth.tenantId",
      "data.done",
      "null",
    ),
    eqOp,
    fc.boolean(),
  )
  .map(([operand, op, flip]) => (flip ? `null ${op} ${operand}` : `${operand} ${op} null`));

const listRef = fc.constantFrom("data.listId", "data.id", quote(ID_POOL[0] ?? ""));
const userRef = fc.constantFrom("auth.userId", "data.ownerId", "data.title", '"u1"', "null");
const existsExpr = fc.oneof(
  fc
    .tuple(
      listRef,
      userRef,
      fc.constantFrom("", " && role == 'editor'", " && role == data.priority"),
    )
    .map(
      ([list, user, role]) => `exists(Member where listId == ${list} && userId == ${user}${role})`,
    ),
  fc
    .tuple(listRef, boolOperand)
    .map(([list, archived]) => `exists(List where id == ${list} && archived == ${archived})`),
  fc
    .constantFrom("auth.tenantId", "null", "data.note", '"t1"')
    .map((tenant) => `exists(List where tenantId == ${tenant} && ownerId == auth.userId)`),
  fc.constantFrom(
    "exists(Todo where ownerId == data.ownerId && rank == data.score)",
    "exists(Todo where listId == data.id)",
    "exists(Todo where createdAt == data.dueAt)",
    "exists(Todo where flag == data.done && priority == 'high')",
    "exists(Todo where dueAt == '2024-05-01T12:00:00+02:00')",
  ),
);

const atom = fc.oneof(
  textCompare,
  numberCompare,
  datetimeCompare,
  boolCompare,
  nullTest,
  boolOperand,
  existsExpr,
);

/** A well-typed read rule over the fixture schema, as source text. */
export const readRule: fc.Arbitrary<string> = fc.letrec<{ rule: string }>((tie) => ({
  rule: fc.oneof(
    { depthSize: "small", maxDepth: 4 },
    atom,
    fc
      .tuple(fc.constantFrom(" && ", " || "), fc.array(tie("rule"), { minLength: 2, maxLength: 3 }))
      .map(([op, parts]) => parts.map((p) => `(${p})`).join(op)),
    tie("rule").map((rule) => `!(${rule})`),
  ),
})).rule;
