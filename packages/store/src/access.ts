import type { Manifest } from "@svc/schema";
import type { Expression, ExpressionBuilder, SqlBool } from "kysely";
import type { AuthContext } from "./auth-context.js";
import type { EntityTables } from "./database.js";
import type { EntityModel } from "./entity-model.js";
import type { Row } from "./types.js";

// The one place that decides who may read and write what. For now it denies
// every caller but the admin token; @svc/policy-engine replaces the body of
// `createAccessControl` with compiled policy rules (and SQL pushdown for
// reads) without touching the call sites.

/** What a caller wants to do with an entity. */
export type AccessOperation = "read" | "insert" | "update" | "delete";

/** The outcome of an access check: expected denials are data, not exceptions. */
export type AccessDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly message: string };

/** A SQL condition a row must meet to be visible to the caller. */
export type ReadFilter = (eb: ExpressionBuilder<EntityTables, string>) => Expression<SqlBool>;

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
  /** Entity-level gate, checked first: may this caller do `op` on this entity at all? */
  checkEntity(auth: AuthContext, entity: EntityModel, op: AccessOperation): AccessDecision;
  /** The condition that limits which rows `get`, `query`, `update` and `delete` see; null for all rows. */
  readFilter(auth: AuthContext, entity: EntityModel): ReadFilter | null;
  /** Row-level check of a write, after validation and owner stamping. */
  checkWrite(check: WriteCheck): AccessDecision;
}

function deniedFor(entity: EntityModel): AccessDecision {
  return {
    allowed: false,
    message: `Entity ${entity.name} has no usable policy; only the admin token can access it.`,
  };
}

const allowed: AccessDecision = { allowed: true };

/**
 * The access rules of a manifest. Deny by default: until the policy engine
 * lands, only `auth.isAdmin` may read or write any entity.
 */
export function createAccessControl(_manifest: Manifest): AccessControl {
  return {
    checkEntity: (auth, entity) => (auth.isAdmin ? allowed : deniedFor(entity)),
    readFilter: () => null,
    checkWrite: ({ auth, entity }) => (auth.isAdmin ? allowed : deniedFor(entity)),
  };
}
