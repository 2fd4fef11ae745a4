import { type Manifest, type ManifestInput, parseManifest } from "@svc/schema";
import { type AccessVerdict, evaluateAccess } from "./check-access.js";
import { compilePolicies } from "./compile-policies.js";
import type { CompiledPolicies, PolicyAuth, PolicyRow } from "./condition.js";
import type { PolicyAction } from "./errors.js";
import { type Explanation, explain } from "./explain.js";
import { type PolicyTables, tableLookup } from "./table-lookup.js";

export { type PolicyTables, tableLookup } from "./table-lookup.js";

/**
 * Builds a full auth context from the fields given; the rest are the
 * anonymous caller's (`userId` and `tenantId` null, no roles, no
 * entitlements, not admin, not guest).
 *
 * @example
 * createPolicyAuth({ userId: "u1", roles: ["editor"] });
 */
export function createPolicyAuth(fields: Partial<PolicyAuth> = {}): PolicyAuth {
  return {
    userId: fields.userId ?? null,
    tenantId: fields.tenantId ?? null,
    roles: fields.roles ?? [],
    entitlements: fields.entitlements ?? [],
    isAdmin: fields.isAdmin ?? false,
    isGuest: fields.isGuest ?? false,
  };
}

/** One situation to test: who (defaults to the anonymous caller), which rows, what else is stored. */
export interface PolicyCase {
  readonly auth?: Partial<PolicyAuth>;
  readonly data?: PolicyRow;
  readonly existing?: PolicyRow;
  /** Rows `exists(...)` sees, merged over the tester's `tables` per entity. */
  readonly tables?: PolicyTables;
}

/** Policy assertions for unit tests; see `policyTester`. */
export interface PolicyTester {
  readonly compiled: CompiledPolicies;
  /** True when some policy allows `action` on `entity` in this case. */
  can(action: PolicyAction, entity: string, input?: PolicyCase): boolean;
  /** The verdict, with the policy that allowed it. */
  check(action: PolicyAction, entity: string, input?: PolicyCase): AccessVerdict;
  /** The rows of `rows` the caller may read, by the reference evaluator. */
  visible<TRow extends PolicyRow>(
    entity: string,
    rows: readonly TRow[],
    input?: Omit<PolicyCase, "data" | "existing">,
  ): TRow[];
  /** `explain` for this case (the SQL shown for reads is SQLite's unless `dialect` says otherwise). */
  explain(
    action: PolicyAction,
    entity: string,
    input?: PolicyCase & { readonly dialect?: "sqlite" | "postgres" },
  ): Explanation;
}

/**
 * Compiles a manifest's policies (a `PolicyError` fails the test with every
 * problem listed) and returns assertions over the reference evaluator.
 * `options.tables` are the rows `exists(...)` sees in every case.
 *
 * @example
 * const p = policyTester(manifest);
 * expect(p.can("read", "Todo", { auth: { userId: "u1" }, data: { ownerId: "u1" } })).toBe(true);
 * expect(p.can("read", "Todo", { data: { ownerId: "u1" } })).toBe(false);
 */
export function policyTester(
  manifest: Manifest | ManifestInput,
  options: { readonly tables?: PolicyTables } = {},
): PolicyTester {
  const compiled = compilePolicies(parseManifest(manifest));
  const request = (action: PolicyAction, entity: string, input: PolicyCase = {}) => ({
    entity,
    action,
    auth: createPolicyAuth(input.auth),
    lookup: tableLookup({ ...options.tables, ...input.tables }),
    ...(input.data === undefined ? {} : { data: input.data }),
    ...(input.existing === undefined ? {} : { existing: input.existing }),
  });
  const check = (action: PolicyAction, entity: string, input?: PolicyCase): AccessVerdict =>
    evaluateAccess(compiled, request(action, entity, input));
  return {
    compiled,
    check,
    can: (action, entity, input) => check(action, entity, input).allowed,
    visible: (entity, rows, input = {}) =>
      rows.filter((data) => check("read", entity, { ...input, data }).allowed),
    explain: (action, entity, input = {}) =>
      explain(compiled, {
        ...request(action, entity, input),
        ...(input.dialect === undefined ? {} : { dialect: input.dialect }),
      }),
  };
}
