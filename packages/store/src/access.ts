import {
  type CompiledPolicies,
  checkAccess,
  compilePolicies,
  compileReadFilter,
  type ExistsResolver,
  rulesFor,
} from "@svc/policy-engine";
import type { AuthContext, Manifest } from "@svc/schema";
import { type Expression, type SqlBool, sql } from "kysely";
import type { EntityModel } from "./entity-model.js";
import { withSpan } from "./tracing.js";
import type { Row } from "./types.js";

// The one place that decides who may read and write what, from the
// manifest's policies compiled by @svc/policy-engine. The admin token
// bypasses them; everyone else is denied unless a policy allows.

/** What a caller wants to do with an entity. */
export type AccessOperation = "read" | "insert" | "update" | "delete";

/** The outcome of an access check: expected denials are data, not exceptions. */
export type AccessDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly message: string };

/** A SQL condition a row must meet to be visible to the caller. */
export type ReadFilter = Expression<SqlBool>;

/** The input of a row-level write check. */
export interface WriteCheck {
  readonly auth: AuthContext;
  readonly entity: EntityModel;
  readonly op: "insert" | "update" | "delete";
  /** The row as it would be stored (owner stamped, defaults filled); null for a delete. */
  readonly data: Row | null;
  /** The row before the write; null for an insert. */
  readonly existing: Row | null;
}

/** The three hooks every store operation goes through. */
export interface AccessControl {
  /** Entity-level gate, checked first: does any policy give this action to anyone? */
  checkEntity(auth: AuthContext, entity: EntityModel, op: AccessOperation): AccessDecision;
  /**
   * The condition that limits which rows `get`, `query`, `update` and
   * `delete` see, compiled into SQL; null for all rows.
   */
  readFilter(auth: AuthContext, entity: EntityModel): ReadFilter | null;
  /** Row-level check of a write, after validation and owner stamping. */
  checkWrite(check: WriteCheck, resolveExists: ExistsResolver): Promise<AccessDecision>;
}

const allowed: AccessDecision = { allowed: true };
// A rule that no row can meet, for a caller whose auth rules everything out.
const noRows: ReadFilter = sql<SqlBool>`1 = 0`;

/**
 * Compiles the manifest's policies; throws the policy engine's
 * `INVALID_POLICIES` error (naming policy, action and column of every
 * problem) so a server with a bad policy does not boot.
 */
export function createAccessControl(manifest: Manifest): AccessControl {
  const compiled: CompiledPolicies = compilePolicies(manifest);
  return {
    checkEntity(auth, entity, op) {
      if (auth.isAdmin || rulesFor(compiled, entity.name, op).length > 0) return allowed;
      return {
        allowed: false,
        message: `No policy of ${entity.name} allows ${op}; only the admin token can ${op} it.`,
      };
    },
    readFilter(auth, entity) {
      if (auth.isAdmin) return null;
      const filter = compileReadFilter(compiled, entity.name, auth);
      if (filter === "all") return null;
      if (filter === "none") return noRows;
      return filter;
    },
    checkWrite({ auth, entity, op, data, existing }, resolveExists) {
      if (auth.isAdmin) return Promise.resolve(allowed);
      const attributes = {
        "svc.entity": entity.name,
        "svc.policy.action": op,
        "svc.policy.stage": "row",
      };
      return withSpan("policy.check", attributes, async (span) => {
        const decision = await checkRow(
          compiled,
          { auth, entity, op, data, existing },
          resolveExists,
        );
        span.setAttribute("svc.policy.allowed", decision.allowed);
        return decision;
      });
    },
  };
}

/** The row-level verdict of the compiled policies on one write. */
async function checkRow(
  compiled: CompiledPolicies,
  { auth, entity, op, data, existing }: WriteCheck,
  resolveExists: ExistsResolver,
): Promise<AccessDecision> {
  const verdict = await checkAccess(
    compiled,
    {
      entity: entity.name,
      action: op,
      auth,
      ...(data !== null && { data }),
      ...(existing !== null && { existing }),
    },
    resolveExists,
  );
  if (verdict.allowed) return allowed;
  return { allowed: false, message: `The ${entity.name} policies do not allow this ${op}.` };
}
