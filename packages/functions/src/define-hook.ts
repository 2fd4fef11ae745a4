import type { Row } from "@svc/store";
import type { MutationContext } from "./context.js";
import type { MaybePromise } from "./define-function.js";

/**
 * What a hook's handler gets: the context of a mutation running inside the
 * transaction of the delete, with the admin token's rights in `db` (a purge
 * must reach rows the caller's policies hide), and the caller in `auth`.
 */
export type HookContext = MutationContext;

/** What `hook(...)` accepts: today, a before-delete hook of one entity. */
export interface HookConfig {
  readonly on: { readonly delete: { readonly entity: string } };
  handler(ctx: HookContext, input: { readonly row: Row }): MaybePromise<void>;
}

/** A hook as a function file's default export; it is not callable over HTTP. */
export interface HookDefinition extends HookConfig {
  readonly type: "hook";
}

/**
 * Declares a hook that runs before every delete of a row of `on.delete.entity`
 * (by a function, the entity API or account deletion), inside the same
 * transaction: throwing (or `ctx.error`) aborts the delete and rolls back.
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
export function hook(config: HookConfig): HookDefinition {
  return Object.freeze({ ...config, type: "hook" });
}
