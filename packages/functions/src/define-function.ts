import type { output, ZodObject, ZodType } from "zod";
import type { ActionContext, MutationContext, QueryContext } from "./context.js";

/** The three kinds of server function. */
export type FunctionType = "query" | "mutation" | "action";

/**
 * Who may call a function besides the admin token: `"user"` (the default)
 * admits signed-in users, `"guest"` also admits guest sessions.
 */
export type FunctionAuth = "user" | "guest";

/** A record of zod schemas, one per argument: `{ title: z.string() }`. */
export type ArgsShape = Readonly<Record<string, ZodType>>;

/**
 * How a function declares its arguments: a zod object (or another zod schema
 * of an object) or a record of zod schemas. Keys the declaration does not
 * name are rejected (unless the zod object is explicitly loose).
 */
export type ArgsSpec = ZodType<Readonly<Record<string, unknown>>> | ArgsShape;

/**
 * The arguments of a function that declares none: any JSON object, passed
 * through unvalidated (how an import-free `.mjs` function takes arguments).
 */
export type UntypedArgs = Readonly<Record<string, unknown>>;

/**
 * The handler's `args` type (defaults filled in): for an argument
 * declaration, or for a whole query, mutation or action (`InferArgs<typeof
 * createTodo>`). What a caller sends is `InferCallArgs`.
 */
export type InferArgs<TArgs> = TArgs extends ZodType
  ? output<TArgs>
  : TArgs extends {
        readonly type: FunctionType;
        handler(ctx: never, args: infer THandlerArgs): unknown;
      }
    ? THandlerArgs
    : TArgs extends ArgsShape
      ? output<ZodObject<TArgs>>
      : UntypedArgs;

/** What a handler may return: the value or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

interface DefinitionFields<TArgs extends ArgsSpec | undefined> {
  /** The argument declaration; omit it for a function without arguments. */
  readonly args?: TArgs;
  /** Who may call the function; default `"user"`. */
  readonly auth?: FunctionAuth;
}

/** What `query(...)` takes. A query reads through `ctx.db` and never writes. */
export interface QueryConfig<
  TArgs extends ArgsSpec | undefined = ArgsSpec | undefined,
  TResult = unknown,
> extends DefinitionFields<TArgs> {
  handler(ctx: QueryContext, args: InferArgs<TArgs>): MaybePromise<TResult>;
}

/** What `query(...)` returns: the config tagged with `type: "query"`. */
export interface QueryDefinition<
  TArgs extends ArgsSpec | undefined = ArgsSpec | undefined,
  TResult = unknown,
> extends QueryConfig<TArgs, TResult> {
  readonly type: "query";
}

/** What `mutation(...)` takes. A mutation reads and writes through `ctx.db` in one transaction. */
export interface MutationConfig<
  TArgs extends ArgsSpec | undefined = ArgsSpec | undefined,
  TResult = unknown,
> extends DefinitionFields<TArgs> {
  handler(ctx: MutationContext, args: InferArgs<TArgs>): MaybePromise<TResult>;
  /**
   * Runs the mutation on a schedule as well (a cron expression, UTC: five
   * fields, or six with seconds first), with the admin's rights and no
   * arguments; each occurrence runs once even with several servers.
   */
  readonly cron?: string;
}

/** What `mutation(...)` returns: the config tagged with `type: "mutation"`. */
export interface MutationDefinition<
  TArgs extends ArgsSpec | undefined = ArgsSpec | undefined,
  TResult = unknown,
> extends MutationConfig<TArgs, TResult> {
  readonly type: "mutation";
}

/**
 * What `action(...)` takes. An action has no database handle; it calls
 * queries and mutations and talks to the outside world.
 */
export interface ActionConfig<
  TArgs extends ArgsSpec | undefined = ArgsSpec | undefined,
  TResult = unknown,
> extends DefinitionFields<TArgs> {
  handler(ctx: ActionContext, args: InferArgs<TArgs>): MaybePromise<TResult>;
  /** Runs the action on a schedule as well (see `MutationConfig.cron`). */
  readonly cron?: string;
}

/** What `action(...)` returns: the config tagged with `type: "action"`. */
export interface ActionDefinition<
  TArgs extends ArgsSpec | undefined = ArgsSpec | undefined,
  TResult = unknown,
> extends ActionConfig<TArgs, TResult> {
  readonly type: "action";
}

/** Any function definition, as a registry holds it. */
export type FunctionDefinition = QueryDefinition | MutationDefinition | ActionDefinition;

/**
 * Declares a query. The default export of `functions/<name>.ts`.
 *
 * @example
 * ```ts
 * export default query({
 *   args: { id: z.string() },
 *   handler: (ctx, args) => ctx.db.get("Todo", args.id),
 * });
 * ```
 */
export function query<TArgs extends ArgsSpec | undefined = undefined, TResult = unknown>(
  definition: QueryConfig<TArgs, TResult>,
): QueryDefinition<TArgs, TResult> {
  return Object.freeze({ ...definition, type: "query" });
}

/**
 * Declares a mutation. Everything it writes commits together, or not at all
 * when the handler throws.
 *
 * @example
 * ```ts
 * export default mutation({
 *   args: { title: z.string().min(1) },
 *   handler: (ctx, args) => ctx.db.insert("Todo", { title: args.title, done: false }),
 * });
 * ```
 */
export function mutation<TArgs extends ArgsSpec | undefined = undefined, TResult = unknown>(
  definition: MutationConfig<TArgs, TResult>,
): MutationDefinition<TArgs, TResult> {
  return Object.freeze({ ...definition, type: "mutation" });
}

/**
 * Declares an action: code that may call out (HTTP, email) and runs queries
 * and mutations through `ctx.runQuery` / `ctx.runMutation`.
 *
 * @example
 * ```ts
 * export default action({
 *   args: { title: z.string() },
 *   handler: async (ctx, args) => ctx.runMutation("createTodo", { title: args.title }),
 * });
 * ```
 */
export function action<TArgs extends ArgsSpec | undefined = undefined, TResult = unknown>(
  definition: ActionConfig<TArgs, TResult>,
): ActionDefinition<TArgs, TResult> {
  return Object.freeze({ ...definition, type: "action" });
}
