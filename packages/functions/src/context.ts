import type { AuthContext, EntityReader, EntityWriter } from "@svc/store";
import type { EmailContext } from "./email.js";
import type { FunctionLog } from "./log.js";
import type { SchedulerContext } from "./scheduler.js";

/** What every function's `ctx` has. */
export interface BaseContext {
  /**
   * Who is calling: user, tenant, roles, admin and guest flags, and
   * `entitlements`, the caller's active billing entitlements (price or
   * product ids), filled by @svc/billing when it is configured; empty
   * otherwise.
   *
   * @example
   * ```ts
   * if (!ctx.auth.entitlements.includes("price_pro")) {
   *   ctx.error("PLAN_REQUIRED", "This needs the Pro plan.", 403);
   * }
   * ```
   */
  readonly auth: AuthContext;
  /**
   * Stops the function with an error the client sees as
   * `{ error: { code, message } }`. `code` must be UPPER_SNAKE; `status`
   * defaults to 400 and must be 400..599.
   *
   * @example
   * ```ts
   * if (!todo) ctx.error("TODO_NOT_FOUND", "No todo has this id.", 404);
   * ```
   */
  error(code: string, message: string, status?: number): never;
  /**
   * Writes to the server's log, in the same stream as its own lines (JSON
   * in production, readable in dev mode), each line carrying `fn` (this
   * function's name) and, inside a request, the request's `requestId`.
   * `fields` are added to the line; never log tokens or passwords.
   *
   * @example
   * ```ts
   * ctx.log.info("invite sent", { inviteId: invite.id });
   * ctx.log.warn("slow provider", { ms: elapsed });
   * ```
   */
  readonly log: FunctionLog;
  /**
   * Resolves with the caller's membership row of organization `orgId`, or
   * stops the function with 403 `NOT_A_MEMBER` when the caller is not a
   * member (or, with `role`, has none of those roles). Memberships are rows
   * of the manifest's `OrgMember {orgId, userId, role}` entity, read past
   * its policies; the admin token passes as an owner-less member.
   *
   * @example
   * ```ts
   * await ctx.requireMember(args.orgId, { role: ["admin", "owner"] });
   * ```
   */
  requireMember(
    orgId: string,
    options?: { readonly role?: readonly string[] },
  ): Promise<Membership>;
}

/** A caller's membership of one organization. */
export interface Membership {
  readonly orgId: string;
  /** Null for the admin token, which passes every membership check. */
  readonly userId: string | null;
  /** Null for the admin token. */
  readonly role: string | null;
}

/** The `ctx` of a query: reads only, outside a transaction. */
export interface QueryContext extends BaseContext {
  /** Reads checked against the caller's access. */
  readonly db: EntityReader;
}

/** The `ctx` of a mutation: reads and writes inside one transaction. */
export interface MutationContext extends BaseContext {
  /**
   * Reads and writes checked against the caller's access, all in one
   * transaction that rolls back when the handler throws.
   */
  readonly db: EntityWriter;
  /**
   * Runs a mutation or action later, durably, as this caller. The job is
   * written in this mutation's transaction: if the mutation throws, it was
   * never scheduled.
   *
   * @example
   * ```ts
   * await ctx.scheduler.runAfter(24 * 3_600_000, "expireInvite", { inviteId: invite.id });
   * ```
   */
  readonly scheduler: SchedulerContext;
  /**
   * Sends plain-text email after the transaction commits: a mutation that
   * throws sends nothing. The input is checked at once (`INVALID_EMAIL`); a
   * transport failure after the commit is logged, never returned, because
   * the writes stand. Not available in delete hooks (`EMAIL_UNAVAILABLE`).
   *
   * @example
   * ```ts
   * await ctx.email.send({ to: args.email, subject: "Welcome", text: "Thanks for joining." });
   * ```
   */
  readonly email: EmailContext;
}

/**
 * The `ctx` of an action: no database handle; it calls queries and
 * mutations by name with the caller's auth, each validated and checked like
 * a call from the client (each mutation is its own transaction).
 */
export interface ActionContext extends BaseContext {
  /** Runs the query `name` and resolves with its JSON result. */
  runQuery(name: string, args?: Readonly<Record<string, unknown>>): Promise<unknown>;
  /** Runs the mutation `name` in its own transaction and resolves with its JSON result. */
  runMutation(name: string, args?: Readonly<Record<string, unknown>>): Promise<unknown>;
  /** Runs a mutation or action later, durably, as this caller (written at once). */
  readonly scheduler: SchedulerContext;
  /**
   * Sends plain-text email now: resolves once the transport accepted it,
   * rejects with `INVALID_EMAIL` (400) or `EMAIL_SEND_FAILED` (500).
   */
  readonly email: EmailContext;
}
