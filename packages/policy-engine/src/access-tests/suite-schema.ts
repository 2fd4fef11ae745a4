import { z } from "zod";
import { PolicyError, policyErrorCodes } from "../errors.js";

/** Limits on an access tests file: it may come from anywhere, so nothing in it is unbounded. */
export const ACCESS_TEST_LIMITS = {
  /** Callers declared. */
  callers: 256,
  /** Stored rows declared, over all entities. */
  rows: 10_000,
  /** Expectation entries. */
  cases: 10_000,
  /** Callers one entry may name. */
  callersPerCase: 64,
  /** Characters of a name (caller, row). */
  name: 128,
} as const;

const name = z
  .string()
  .min(1)
  .max(ACCESS_TEST_LIMITS.name)
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, "must be a name (letters, digits, _ . -)");

/** `{ "$row": "<row name>" }`: the id of a row declared in `rows`. */
const rowRef = z.object({ $row: name }).strict();

/** A user or tenant id: a string, or the id of a declared row. */
const idValue = z.union([z.string().min(1).max(512), rowRef]);

/** Who calls: a kind and the parts of the auth context a rule can read. */
export const accessCallerSchema = z
  .object({
    /**
     * `user` (the default when `userId` is given), `guest` (a guest session),
     * `anonymous` (the default otherwise), `admin` (the admin token: bypasses
     * every policy) or `apiKey` (a `pk.` key: its owner's user id, no tenant,
     * no roles).
     */
    kind: z.enum(["user", "guest", "anonymous", "admin", "apiKey"]).optional(),
    userId: idValue.optional(),
    /** The active organization: a member with a role in a tenant. */
    tenantId: idValue.optional(),
    roles: z.array(z.string().min(1).max(128)).max(64).optional(),
    entitlements: z.array(z.string().min(1).max(256)).max(64).optional(),
  })
  .strict()
  .superRefine((caller, ctx) => {
    const kind = caller.kind ?? (caller.userId === undefined ? "anonymous" : "user");
    const needsUser = kind === "user" || kind === "guest" || kind === "apiKey";
    if (needsUser && caller.userId === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["userId"],
        message: `a ${kind} caller needs a userId`,
      });
    }
    if (!needsUser) {
      for (const key of ["userId", "tenantId", "roles", "entitlements"] as const) {
        if (caller[key] !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: [key],
            message: `an ${kind} caller has no ${key}`,
          });
        }
      }
    }
    if (kind === "apiKey") {
      for (const key of ["tenantId", "roles"] as const) {
        if (caller[key] !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: [key],
            message: `an API key resolves to its owner with no ${key === "roles" ? "roles" : "tenant"}`,
          });
        }
      }
    }
  });

const verdict = z.enum(["allow", "deny"]);

/** One expectation: callers, the row, and the verdict per action. */
export const accessCaseSchema = z
  .object({
    /** What the entry checks, shown with a mismatch. */
    name: z.string().max(500).optional(),
    caller: z.union([name, z.array(name).min(1).max(ACCESS_TEST_LIMITS.callersPerCase)]),
    /** A stored row (read, update, delete), or the template of an insert. */
    row: name.optional(),
    /** The entity of an insert given without `row`. */
    entity: name.optional(),
    /** The insert's fields, or the update's patch (merged over `row`). */
    data: z.record(z.string(), z.unknown()).optional(),
    read: verdict.optional(),
    insert: verdict.optional(),
    update: verdict.optional(),
    delete: verdict.optional(),
  })
  .strict();

/**
 * The `policies.test.json` file: named callers, named stored rows per
 * entity (the database the checks run against), and expectations.
 */
export const accessSuiteSchema = z
  .object({
    $schema: z.string().optional(),
    description: z.string().max(2000).optional(),
    callers: z
      .record(name, accessCallerSchema)
      .refine((callers) => Object.keys(callers).length <= ACCESS_TEST_LIMITS.callers, {
        message: `at most ${ACCESS_TEST_LIMITS.callers} callers`,
      }),
    rows: z
      .record(name, z.record(name, z.record(z.string(), z.unknown())))
      .refine(
        (rows) =>
          Object.values(rows).reduce((sum, byName) => sum + Object.keys(byName).length, 0) <=
          ACCESS_TEST_LIMITS.rows,
        { message: `at most ${ACCESS_TEST_LIMITS.rows} rows` },
      )
      .default({}),
    expect: z.array(accessCaseSchema).min(1).max(ACCESS_TEST_LIMITS.cases),
  })
  .strict();

export type AccessCallerInput = z.infer<typeof accessCallerSchema>;
export type AccessCaseInput = z.infer<typeof accessCaseSchema>;
/** A parsed access tests file; see `parseAccessSuite`. */
export type AccessSuiteInput = z.infer<typeof accessSuiteSchema>;

/** `expect[3].caller`, `callers.bob.userId`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out || "(root)";
}

/** Throws `INVALID_ACCESS_TESTS` with one line per problem, each naming the file and the entry. */
export function accessTestsError(source: string, problems: readonly string[]): PolicyError {
  const base = policyErrorCodes.INVALID_ACCESS_TESTS.message.slice(0, -1);
  return new PolicyError("INVALID_ACCESS_TESTS", {
    message: `${base}: ${problems.map((problem) => `${source}: ${problem}`).join("; ")}`,
  });
}

/**
 * Checks the shape of an access tests file (already parsed from JSON).
 * `source` names the file in messages. Throws `PolicyError`
 * `INVALID_ACCESS_TESTS` listing every problem as
 * `<source>: <path>: <message>`, e.g.
 * `policies.test.json: expect[3].read: Invalid option: expected one of "allow"|"deny"`.
 *
 * @example
 * const suite = parseAccessSuite(JSON.parse(text), "policies.test.json");
 */
export function parseAccessSuite(value: unknown, source: string): AccessSuiteInput {
  const parsed = accessSuiteSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw accessTestsError(
    source,
    parsed.error.issues
      .slice(0, 20)
      .map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`),
  );
}

/** The JSON Schema of the access tests file, generated from the zod schema (for `$schema` and editors). */
export function accessSuiteJSONSchema(): Record<string, unknown> {
  return z.toJSONSchema(accessSuiteSchema, { io: "input" }) as Record<string, unknown>;
}
