import type { Row } from "@svc/store";
import type { MutationContext } from "./context.js";
import type { MaybePromise } from "./define-function.js";

/**
 * What a hook's handler gets: the context of a mutation running inside the
 * transaction of the delete, with the admin token's rights in `db` (a purge
 * must reach rows the caller's policies hide), and the caller in `auth`.
 */
export type HookContext = MutationContext;

/** A before-delete hook of one entity. */
export interface DeleteHookConfig {
  readonly on: { readonly delete: { readonly entity: string } };
  handler(ctx: HookContext, input: { readonly row: Row }): MaybePromise<void>;
}

/**
 * A verified payment-processor event, as @svc/billing records it: the
 * processor's event object (`id`, `type`, `created`, `data.object`, …).
 */
export interface BillingEventInput {
  readonly event: {
    readonly id: string;
    readonly type: string;
    readonly [field: string]: unknown;
  };
  /** True when an admin replays a recorded event. */
  readonly replay: boolean;
}

/**
 * A hook on verified billing webhook events: all of them, or only the
 * `events` types listed (e.g. `customer.subscription.updated`).
 */
export interface BillingHookConfig {
  readonly on: { readonly billing: { readonly events?: readonly string[] } };
  handler(ctx: HookContext, input: BillingEventInput): MaybePromise<void>;
}

/** What `hook(...)` accepts: a before-delete hook, or a billing-event hook. */
export type HookConfig = DeleteHookConfig | BillingHookConfig;

/** A hook as a function file's default export; it is not callable over HTTP. */
export type HookDefinition = HookConfig & { readonly type: "hook" };

/** True for a billing-event hook. */
export function isBillingHook(
  definition: HookDefinition,
): definition is BillingHookConfig & { readonly type: "hook" } {
  return "billing" in definition.on;
}

/**
 * Declares a hook that runs before every delete of a row of `on.delete.entity`
 * (by a function, the entity API or account deletion), inside the same
 * transaction: throwing (or `ctx.error`) aborts the delete and rolls back.
 *
 * With `on: { billing: { events } }` it runs once for every verified billing
 * webhook event of those types (all types when `events` is left out), in
 * its own transaction with the admin's rights, after the event is recorded
 * and the entitlements are updated. A throw is recorded on the event, which
 * an admin can replay (`POST /api/admin/billing/events/<id>/replay`).
 *
 * @example
 * export default hook({
 *   on: { delete: { entity: "User" } },
 *   handler: async (ctx, { row }) => {
 *     const todos = await ctx.db.query("Todo", { where: { ownerId: row.id } });
 *     for (const todo of todos.rows) await ctx.db.delete("Todo", todo.id);
 *   },
 * });
 */
export function hook(config: DeleteHookConfig): DeleteHookConfig & { readonly type: "hook" };
export function hook(config: BillingHookConfig): BillingHookConfig & { readonly type: "hook" };
export function hook(config: HookConfig): HookDefinition {
  return Object.freeze({ ...config, type: "hook" as const });
}
