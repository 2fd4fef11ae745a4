import type { AppManifest, InferEntityFields } from "@svc/schema";
import type { input, ZodObject, ZodType } from "zod";
import type { ArgsShape, FunctionType, UntypedArgs } from "./define-function.js";

/**
 * What `query(...)`, `mutation(...)` and `action(...)` return, as far as the
 * inference helpers need it. Hooks and rooms (`type: "hook" | "room"`) are
 * not callable, so they do not match.
 */
export interface CallableDefinition {
  readonly type: FunctionType;
  readonly args?: unknown;
  // biome-ignore lint/suspicious/noExplicitAny: `any` parameters accept every handler's signature.
  handler(ctx: any, args: any): unknown;
}

type JSONPrimitive = string | number | boolean | null;

// Values JSON.stringify leaves out of an object (and turns into null in an array).
// biome-ignore lint/complexity/noBannedTypes: any function value is dropped, whatever its signature.
type Dropped = undefined | symbol | Function;

// An array item JSON cannot carry becomes null.
type JSONItem<T> = T extends Dropped ? null : JSONValue<T>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type JSONObject<T> = Simplify<
  {
    [K in keyof T as K extends symbol
      ? never
      : T[K] extends Dropped
        ? never
        : undefined extends T[K]
          ? never
          : K]: JSONValue<T[K]>;
  } & {
    [K in keyof T as K extends symbol
      ? never
      : T[K] extends Dropped
        ? never
        : undefined extends T[K]
          ? K
          : never]?: JSONValue<Exclude<T[K], Dropped>>;
  }
>;

/**
 * The type a value has after a JSON round trip (`JSON.parse(JSON.stringify(v))`):
 * `toJSON()` is applied (a `Date` becomes a `string`), object properties that
 * may be `undefined` become optional and functions and symbols are dropped,
 * array items that JSON cannot carry become `null`, and a `bigint` (which
 * JSON.stringify rejects) becomes `never`. `unknown` stays `unknown`.
 *
 * @example
 * type T = JSONValue<{ at: Date; note?: string; n: bigint }>; // { at: string; note?: string; n: never }
 */
export type JSONValue<T> = unknown extends T ? unknown : JSONValueOf<T>;

// Distributes over a union (JSONValue's `unknown extends T` check does not).
type JSONValueOf<T> = T extends { toJSON(...args: never[]): infer TJSON }
  ? JSONValue<TJSON>
  : T extends JSONPrimitive
    ? T
    : T extends bigint | Dropped
      ? never
      : T extends readonly unknown[]
        ? { -readonly [K in keyof T]: JSONItem<T[K]> }
        : T extends object
          ? JSONObject<T>
          : never;

/**
 * What a function's caller receives for a handler result of type `T`, as the
 * runner's `toJSONResult` produces it: the awaited value after a JSON round
 * trip (`JSONValue`), with `undefined` (or `void`) answered as `null`.
 */
export type JSONResult<T> = [T] extends [never]
  ? never
  : Awaited<T> extends infer TValue
    ? // biome-ignore lint/suspicious/noConfusingVoidType: a handler typed `=> void` answers null too.
      TValue extends undefined | void
      ? null
      : JSONValue<TValue>
    : never;

/**
 * What calling a query, mutation or action answers over the wire (or through
 * `ctx.runQuery` and friends): its handler's awaited result after
 * `toJSONResult` (`undefined` → `null`, `Date` → ISO string, see `JSONValue`).
 *
 * @example
 * const createTodo = mutation({ handler: async () => ({ id: "x", at: new Date() }) });
 * type Result = InferResult<typeof createTodo>; // { id: string; at: string }
 */
export type InferResult<TFunction extends CallableDefinition> = JSONResult<
  ReturnType<TFunction["handler"]>
>;

/**
 * What a caller sends to a query, mutation or action: the zod *input* of its
 * argument declaration (so arguments with a `.default(...)` may be left out),
 * or any JSON object when it declares none. `InferArgs<typeof fn>` is the
 * handler's view of the same arguments (defaults filled in).
 *
 * @example
 * const createTodo = mutation({ args: { title: z.string(), done: z.boolean().default(false) }, handler });
 * type Args = InferCallArgs<typeof createTodo>; // { title: string; done?: boolean | undefined }
 */
export type InferCallArgs<TFunction extends CallableDefinition> = [
  Exclude<TFunction["args"], undefined>,
] extends [never]
  ? UntypedArgs
  : ArgsInput<Exclude<TFunction["args"], undefined>>;

type ArgsInput<TArgs> = TArgs extends ZodType
  ? input<TArgs>
  : TArgs extends ArgsShape
    ? input<ZodObject<TArgs>>
    : UntypedArgs;

/**
 * One function as the client's `Api` type declares it: what a caller sends
 * and what it receives.
 */
export interface FunctionApi<TFunction extends CallableDefinition> {
  readonly args: InferCallArgs<TFunction>;
  readonly result: InferResult<TFunction>;
}

/**
 * The `functions` half of the client's `Api` type from a record of function
 * definitions by name (e.g. `{ createTodo: typeof createTodo }`); hooks and
 * rooms are left out, since clients cannot call them.
 */
export type InferFunctions<TFunctions> = {
  [TName in keyof TFunctions as TFunctions[TName] extends CallableDefinition
    ? TName
    : never]: TFunctions[TName] extends CallableDefinition ? FunctionApi<TFunctions[TName]> : never;
};

/**
 * The `Api` type `createClient<Api>()` from @svc/client takes, inferred from
 * an app made by `defineApp` and its function definitions by name; `svc
 * codegen` writes the same type for a JSON manifest.
 *
 * @example
 * import app from "./app.js";
 * import createTodo from "./functions/createTodo.js";
 * const client = createClient<ApiOf<typeof app, { createTodo: typeof createTodo }>>({ url });
 */
export interface ApiOf<TApp extends AppManifest, TFunctions> {
  readonly functions: InferFunctions<TFunctions>;
  readonly entities: InferEntityFields<TApp>;
}
