import type { AuthContext } from "@svc/schema";
import type { CallerRequestInfo, CallerResolver } from "@svc/schema/http";
import type { Kysely } from "kysely";
import type { EntityTables, StoreDialect } from "./database.js";
import type { PackageMigrations } from "./package-migrations.js";
import type { Store } from "./types.js";

/** What a bearer resolver is told beside the token: @svc/schema's, shared with the live transports. */
export type BearerRequestInfo = CallerRequestInfo;

/**
 * Turns a bearer token into a caller, or null when the token is not of its
 * kind (the next resolver is tried); @svc/schema's `CallerResolver`, so the
 * composed list is what `resolveCaller` (the HTTP gate, the live upgrade) takes.
 */
export type ModuleBearerResolver = CallerResolver;

/** The log a module writes to: pino's call shape, so a pino logger is one. */
export interface ModuleLog {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

/**
 * What every module is built from: one database, one store over it, one
 * clock, one secret and one log. The server builds it once; a third party
 * composing their own express app builds it the same way (see the README).
 */
export interface SvcRuntime {
  /** The read-write connection (pool on Postgres). */
  readonly db: Kysely<EntityTables>;
  readonly dialect: StoreDialect;
  readonly store: Store;
  /** Milliseconds since the epoch; tests inject their own. */
  readonly now: () => number;
  /** The deployment's secret: modules derive their own keys from it (HKDF), never use it as is. */
  readonly secret: string;
  readonly log: ModuleLog;
  /** Dev mode: relaxed origins, the dev inbox, the reset route. */
  readonly devMode: boolean;
}

/**
 * What a package hands to the composer. Every part is optional: a module
 * contributes what it has. The composer migrates every module's tables in
 * one transaction, registers the routes in list order, tries the bearer
 * resolvers in list order, and calls `start`, `reset` and `close` (the last
 * in reverse order, so a module closes before what it was built on).
 *
 * `App` is what routes are registered on: an express app or router for the
 * packages' `./express` modules. The contract itself names no HTTP framework.
 */
export interface SvcModule<App = unknown> {
  /** The package, e.g. `@svc/auth-core`; names the module in errors and logs. */
  readonly name: string;
  /** Its own tables. */
  readonly migrations?: readonly PackageMigrations[];
  /**
   * Registers its HTTP routes, with their full paths, straight onto `app`
   * (no router of its own in between: every mounted router is one more
   * pass over each request).
   */
  readonly routes?: (app: App) => void;
  /** Its kinds of bearer token, in the order they are tried. */
  readonly resolvers?: readonly ModuleBearerResolver[];
  /**
   * Adds to a caller what this module knows of them (billing adds the
   * entitlements); applied to every resolved caller, in module order.
   */
  readonly decorateCaller?: (caller: AuthContext) => Promise<AuthContext>;
  /** Background work (timers, workers, listeners), started after migration. */
  start?(): void | Promise<void>;
  /** Whether the module can serve; a failure takes the server out of readiness. */
  ready?(): Promise<void>;
  /** Empties its tables and caches (the dev reset of an in-memory database). */
  reset?(): Promise<void>;
  /**
   * Stops its background work and flushes what it buffers, letting work in
   * progress finish for up to `drainMs` (a job worker's running jobs).
   */
  close?(options: CloseOptions): Promise<void>;
}

/** What `close` is told. */
export interface CloseOptions {
  /** How long work in progress may still take, in milliseconds. */
  readonly drainMs: number;
}

/** The modules of one server, folded into what the composer needs. */
export interface ComposedModules<App = unknown> {
  readonly modules: readonly SvcModule<App>[];
  readonly migrations: readonly PackageMigrations[];
  /** Registers every module's routes on `app`, in list order (put the hottest first). */
  routes(app: App): void;
  /** Every module's bearer resolvers, with every `decorateCaller` applied to what they return. */
  readonly resolvers: readonly ModuleBearerResolver[];
  /** Applies every module's `decorateCaller` in order (for the session cookie, which has no bearer). */
  decorate(caller: AuthContext | null): Promise<AuthContext | null>;
  start(): Promise<void>;
  ready(): Promise<void>;
  reset(): Promise<void>;
  /** Closes every module, last first; every close runs even when one fails (the first failure is rethrown). */
  close(options?: CloseOptions): Promise<void>;
}

/**
 * A resolver whose callers pass through the decorators. A token that is not
 * the resolver's kind stays a synchronous null, and a caller without a user
 * (the admin token) is returned as is: the hot path waits on no promise.
 */
function decorated(
  resolve: ModuleBearerResolver,
  decorate: (caller: AuthContext | null) => Promise<AuthContext | null>,
): ModuleBearerResolver {
  return (token, info) => {
    const resolved = resolve(token, info);
    if (resolved === null) return null;
    if (!(resolved instanceof Promise))
      return resolved.userId === null ? resolved : decorate(resolved);
    return resolved.then(decorate);
  };
}

/**
 * Folds a list of modules into one. Names must be unique: two modules of
 * one package would register every route and migration twice.
 */
export function composeModules<App>(modules: readonly SvcModule<App>[]): ComposedModules<App> {
  const seen = new Set<string>();
  for (const module of modules) {
    if (seen.has(module.name)) {
      throw new TypeError(`The module ${module.name} is listed twice.`);
    }
    seen.add(module.name);
  }
  const decorators = modules.flatMap((module) =>
    module.decorateCaller === undefined ? [] : [module.decorateCaller],
  );
  const decorate = async (caller: AuthContext | null): Promise<AuthContext | null> => {
    let current = caller;
    for (const decorator of decorators) {
      if (current === null) return null;
      current = await decorator(current);
    }
    return current;
  };
  const resolvers = modules.flatMap((module) => module.resolvers ?? []);
  return {
    modules,
    migrations: modules.flatMap((module) => module.migrations ?? []),
    routes(app) {
      for (const module of modules) module.routes?.(app);
    },
    resolvers:
      decorators.length === 0
        ? resolvers
        : resolvers.map((resolve) => decorated(resolve, decorate)),
    decorate,
    async start() {
      for (const module of modules) await module.start?.();
    },
    async ready() {
      await Promise.all(modules.map((module) => module.ready?.()));
    },
    async reset() {
      for (const module of modules) await module.reset?.();
    },
    async close(options = { drainMs: 0 }) {
      let failure: { error: unknown } | undefined;
      for (const module of [...modules].reverse()) {
        try {
          await module.close?.(options);
        } catch (error) {
          failure ??= { error };
        }
      }
      if (failure !== undefined) throw failure.error;
    },
  };
}
