import { type AuthContext, adminAuth, type RoomLogic } from "@svc/schema";
import {
  createIdempotency,
  type FrameworkTransaction,
  type Idempotency,
  type IdempotentWrite,
  idempotentWriteOf,
  type Store,
} from "@svc/store";
import { findDefinitionProblem } from "./check-definition.js";
import type { ActionContext, BaseContext, MutationContext, QueryContext } from "./context.js";
import type { FunctionDefinition, FunctionType } from "./define-function.js";
import {
  type BillingEventInput,
  type BillingHookConfig,
  type DeleteHookConfig,
  isBillingHook,
} from "./define-hook.js";
import type { RoomDefinition } from "./define-room.js";
import { createEmailOutbox, type EmailSender, immediateEmail, unavailableEmail } from "./email.js";
import { FunctionsError } from "./errors.js";
import type { FunctionRegistry } from "./function-registry.js";
import { consoleLogSink, createFunctionLog, type FunctionLog, type LogSink } from "./log.js";
import { membershipCheck } from "./require-member.js";
import { createRoomLogic } from "./room-logic.js";
import { raiseError, readOnly, toClientError } from "./runner-helpers.js";
import {
  createSchedulerContext,
  type JobScheduler,
  type SchedulerContext,
  type SchedulerTransaction,
  type ScheduleTarget,
} from "./scheduler.js";
import { toJSONResult } from "./to-json-result.js";
import { withSpan } from "./tracing.js";
import { type ArgsValidator, createArgsValidator } from "./validate-args.js";

/** What a function runner needs. */
export interface FunctionRunnerOptions {
  /** The store queries read from and mutations write to. */
  readonly store: Store;
  /** The functions by name, usually from `loadFunctions`. */
  readonly functions: FunctionRegistry;
  /**
   * Where `ctx.scheduler` puts calls to run later (@svc/jobs'
   * `createQueueScheduler(queue)`); without it `ctx.scheduler` rejects with
   * `SCHEDULER_UNAVAILABLE`.
   */
  readonly scheduler?: JobScheduler;
  /** Unix ms, for `ctx.scheduler.runAfter`. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * What delivers `ctx.email.send`; without it every send fails with
   * `EMAIL_SEND_FAILED`.
   */
  readonly email?: EmailSender | undefined;
  /**
   * Receives what cannot reach a caller: an email of a mutation that failed
   * after the commit. Default `console.error`.
   */
  readonly logError?: (message: string, error: unknown) => void;
  /**
   * Where `ctx.log` writes: a logger with pino's `(fields, message)`
   * methods (the server's own). Default the console.
   */
  readonly log?: LogSink;
  /**
   * Where calls with an `idempotencyKey` are recorded. Default
   * `createIdempotency(store, { now, onError })` of @svc/store, its sweep
   * failures going to `logError`.
   */
  readonly idempotency?: Idempotency;
}

/** Per-call options of `run`. */
export interface RunOptions {
  /**
   * The client's `Idempotency-Key`: the call runs once per key (scoped to
   * the caller, bound to the function and its raw arguments). A mutation
   * claims the key and records its answer in its own transaction (the
   * store's `Idempotency.transaction`), an action holds the key while it
   * runs; a query ignores it. A repeat resolves with the recorded answer,
   * an `IdempotentReplay` of @svc/store, instead of running again; a
   * malformed key is 400 `INVALID_IDEMPOTENCY_KEY` (before the lookup), a
   * key used for another call 409 `IDEMPOTENCY_KEY_REUSED`, one whose action
   * still runs 409 `IDEMPOTENCY_KEY_IN_PROGRESS`.
   */
  readonly idempotencyKey?: string;
}

/** Runs functions by name for a caller: lookup, access rules, argument validation, context. */
export interface FunctionRunner {
  /**
   * Runs function `name` for `auth` with the client's raw arguments and
   * resolves with a JSON-ready result (`undefined` becomes `null`). Rejects
   * with an error that has `expose: true` and a `status`: a `FunctionsError`,
   * or a store/schema wire error passed through unchanged. With
   * `options.idempotencyKey`, a repeated call resolves with an
   * `IdempotentReplay` (see `RunOptions`).
   */
  run(name: string, rawArgs: unknown, auth: AuthContext, options?: RunOptions): Promise<unknown>;
  /** Whether a function with this name exists. */
  has(name: string): boolean;
  /** The function names, sorted. */
  names(): readonly string[];
  /**
   * Runs every billing hook that listens to `input.event.type`, one after
   * another, each in its own transaction with the admin's rights; the
   * first failure rejects (client-safe errors as they are, others as
   * `FUNCTION_FAILED`). Resolves at once when none listens.
   */
  dispatchBillingEvent(input: BillingEventInput): Promise<void>;
  /** Whether any billing hook exists (so billing can skip the hook step). */
  hasBillingHooks(): boolean;
  /**
   * The room logic of the registry's `room(...)` files by room kind, each
   * handler wrapped with its context and client-safe errors; hand it to
   * @svc/sync's `attachShards` as `logic`.
   */
  rooms(): ReadonlyMap<string, RoomLogic>;
  /**
   * The mutations and actions that declare a `cron` schedule, by name, for
   * a job worker to enqueue (they run with the admin's rights, no arguments).
   */
  schedules(): readonly FunctionSchedule[];
}

/** A function that runs on a schedule (`cron` in its definition). */
export interface FunctionSchedule {
  /** The function's name. */
  readonly name: string;
  /** Its cron expression (UTC). */
  readonly cron: string;
}

const FUNCTION_NAME = /^[A-Za-z][A-Za-z0-9_]{0,99}$/;

/** A registry entry with its argument validator built once. */
interface Entry {
  readonly name: string;
  readonly definition: FunctionDefinition;
  readonly validate: ArgsValidator;
  /** Its `ctx.log`, made once. */
  readonly log: FunctionLog;
}

/**
 * Creates the runner that executes functions against a store.
 *
 * A caller needs a `userId` or the admin token (`AUTH_REQUIRED`, 401); a guest
 * may call only functions declared `auth: "guest"` (`GUEST_NOT_ALLOWED`, 403).
 * Arguments are validated against the declaration (`INVALID_ARGS`, 400). A
 * query reads through `store.reader(auth)`, a mutation runs in one
 * `store.transaction(auth, ...)`, an action gets `runQuery` / `runMutation`
 * that go through this runner with the same auth. A thrown error that is not
 * already a client-safe one becomes `FUNCTION_FAILED` (500) with the original
 * as `cause`. Throws `INVALID_FUNCTION` at creation when a registry entry is
 * not a definition, or room logic for a kind the manifest's `rooms` lack.
 *
 * @example
 * ```ts
 * const runner = createFunctionRunner({ store, functions: await loadFunctions(dir) });
 * const todo = await runner.run("createTodo", { title: "Milk" }, auth);
 * ```
 */
export function createFunctionRunner(options: FunctionRunnerOptions): FunctionRunner {
  const { store } = options;
  const entries = new Map<string, Entry>();
  const hooks: [string, DeleteHookConfig][] = [];
  const billingHooks: [string, BillingHookConfig][] = [];
  const roomDefinitions: [string, RoomDefinition][] = [];
  const logSink = options.log ?? consoleLogSink;
  for (const [name, definition] of options.functions) {
    const problem = findDefinitionProblem(definition);
    if (problem !== undefined) {
      throw new FunctionsError("INVALID_FUNCTION", {
        message: `Function ${name} is not a function definition: ${problem}.`,
      });
    }
    if (definition.type === "room") roomDefinitions.push([name, definition]);
    else if (definition.type === "hook") {
      if (isBillingHook(definition)) billingHooks.push([name, definition]);
      else hooks.push([name, definition as DeleteHookConfig]);
    } else {
      entries.set(name, {
        name,
        definition,
        validate: createArgsValidator(definition.args),
        log: createFunctionLog(logSink, name),
      });
    }
  }
  const requireMemberFor = membershipCheck(store);
  const names = Object.freeze([...entries.keys()].sort());
  const schedules: readonly FunctionSchedule[] = Object.freeze(
    names.flatMap((name) => {
      const { definition } = entries.get(name) as Entry;
      const cron = (definition as { cron?: unknown }).cron;
      return definition.type !== "query" && typeof cron === "string" ? [{ name, cron }] : [];
    }),
  );
  const rooms = createRoomLogic(store, roomDefinitions);
  const scheduleTarget: ScheduleTarget = {
    typeOf: (target) => entries.get(target)?.definition.type,
    validate: (target, targetArgs) => {
      const entry = entries.get(target);
      if (entry === undefined) throw new FunctionsError("FUNCTION_NOT_FOUND");
      return entry.validate(targetArgs);
    },
  };
  // Inside a transaction, `committed` runs once it has committed; in an
  // action each call is visible at once.
  const schedulerFor = (
    auth: AuthContext,
    trx: SchedulerTransaction | undefined,
    onScheduled: () => void = () => options.scheduler?.committed?.(),
  ) =>
    createSchedulerContext({
      scheduler: options.scheduler,
      trx,
      auth,
      target: scheduleTarget,
      now: options.now ?? Date.now,
      onScheduled,
    });
  // A delete hook gets no transaction handle from the store, and writing
  // beside it would wait forever on SQLite's one connection: no scheduler.
  const hookScheduler = (auth: AuthContext) =>
    createSchedulerContext({
      scheduler: undefined,
      trx: undefined,
      auth,
      target: scheduleTarget,
      now: options.now ?? Date.now,
    });
  const logError =
    options.logError ??
    ((message: string, error: unknown) => console.error(`svc: ${message}:`, error));
  // Calls named by a client's Idempotency-Key: recorded by the store.
  const idempotency =
    options.idempotency ??
    createIdempotency(store, {
      ...(options.now !== undefined && { now: options.now }),
      onError: (error) => logError("pruning idempotency keys failed", error),
    });
  // After the commit the writes stand: a failed email is logged, not returned.
  const emailFailed = (name: string) => (error: unknown) =>
    logError(`function ${name}: an email after the commit failed`, error);
  for (const [name, definition] of hooks) {
    registerHook(store, name, definition, {
      requireMemberFor,
      schedulerFor: hookScheduler,
      log: createFunctionLog(logSink, name),
    });
  }

  async function run(
    name: string,
    rawArgs: unknown,
    auth: AuthContext,
    expected?: FunctionType,
    runOptions: RunOptions = {},
  ): Promise<unknown> {
    // A malformed key is refused before anything else, whatever the function.
    const write =
      runOptions.idempotencyKey === undefined
        ? undefined
        : idempotentWriteOf(auth, runOptions.idempotencyKey, `fn:${name}`, rawArgs);
    const entry = entries.get(name);
    if (!entry) {
      // Echo the name only when it could be one, never arbitrary caller input.
      throw new FunctionsError(
        "FUNCTION_NOT_FOUND",
        FUNCTION_NAME.test(name) ? { message: `No function named "${name}" exists.` } : {},
      );
    }
    if (expected && entry.definition.type !== expected) {
      throw new FunctionsError("WRONG_FUNCTION_TYPE", {
        message: `Function ${name} is a ${entry.definition.type}, not a ${expected}.`,
      });
    }
    const attributes = { "svc.function.name": name, "svc.function.type": entry.definition.type };
    return withSpan(`function ${name}`, attributes, async () => {
      checkAccess(entry.definition, auth);
      const args = entry.validate(rawArgs);
      try {
        return await execute(entry, args, auth, write);
      } catch (error) {
        throw toClientError(error, name);
      }
    });
  }

  async function execute(
    entry: Entry,
    args: Record<string, unknown>,
    auth: AuthContext,
    write: IdempotentWrite | undefined,
  ): Promise<unknown> {
    const { definition, name } = entry;
    const base: BaseContext = {
      auth,
      error: raiseError,
      log: entry.log,
      requireMember: requireMemberFor(auth),
    };
    switch (definition.type) {
      case "query": {
        const ctx: QueryContext = { ...base, db: readOnly(store.reader(auth)) };
        return toJSONResult(await definition.handler(ctx, args), name);
      }
      case "mutation": {
        // The framework transaction hands the scheduler the kysely
        // transaction, so a scheduled job commits with the mutation.
        let scheduled = false;
        // Emails wait for the commit; a mutation that throws sends nothing.
        const outbox = createEmailOutbox(options.email);
        const work = async (tx: FrameworkTransaction): Promise<unknown> => {
          const scheduler = schedulerFor(auth, tx.db, () => {
            scheduled = true;
          });
          const ctx: MutationContext = {
            ...base,
            db: tx.entities,
            scheduler,
            email: outbox.context,
          };
          return toJSONResult(await definition.handler(ctx, args), name);
        };
        // With a key, the store claims it and records the answer in this
        // same transaction (a replay runs nothing, schedules and sends nothing).
        const result =
          write === undefined
            ? await store.frameworkTransaction(auth, work)
            : await idempotency.transaction(auth, write, 200, work);
        if (scheduled) options.scheduler?.committed?.();
        await outbox.flush(emailFailed(name));
        return result;
      }
      case "action": {
        const ctx: ActionContext = {
          ...base,
          runQuery: (target, targetArgs) => run(target, targetArgs, auth, "query"),
          runMutation: (target, targetArgs) => run(target, targetArgs, auth, "mutation"),
          scheduler: schedulerFor(auth, undefined),
          email: immediateEmail(options.email),
        };
        const work = async (): Promise<unknown> =>
          toJSONResult(await definition.handler(ctx, args), name);
        return write === undefined ? work() : idempotency.action(auth, write, work);
      }
    }
  }

  async function dispatchBillingEvent(input: BillingEventInput): Promise<void> {
    for (const [name, definition] of billingHooks) {
      const events = definition.on.billing.events;
      if (events !== undefined && !events.includes(input.event.type)) continue;
      let scheduled = false;
      const outbox = createEmailOutbox(options.email);
      const log = createFunctionLog(logSink, name);
      const attributes = { "svc.function.name": name, "svc.function.type": "hook" };
      try {
        await withSpan(`function ${name}`, attributes, () =>
          store.frameworkTransaction(adminAuth, async ({ entities: db, db: trx }) => {
            await definition.handler(
              {
                auth: adminAuth,
                db,
                error: raiseError,
                log,
                requireMember: requireMemberFor(adminAuth),
                scheduler: schedulerFor(adminAuth, trx, () => {
                  scheduled = true;
                }),
                email: outbox.context,
              },
              input,
            );
          }),
        );
      } catch (error) {
        throw toClientError(error, name);
      }
      if (scheduled) options.scheduler?.committed?.();
      await outbox.flush(emailFailed(name));
    }
  }

  return {
    run: (name, rawArgs, auth, options) => run(name, rawArgs, auth, undefined, options),
    has: (name) => entries.has(name),
    names: () => names,
    dispatchBillingEvent,
    hasBillingHooks: () => billingHooks.length > 0,
    rooms: () => rooms,
    schedules: () => schedules,
  };
}

/**
 * Registers a hook file with the store. An entity the manifest lacks stops
 * the boot naming the file; an error the hook throws reaches the deleting
 * caller like a mutation's (client-safe errors as they are, others as
 * `FUNCTION_FAILED`).
 */
function registerHook(
  store: Store,
  name: string,
  definition: DeleteHookConfig,
  seams: {
    readonly requireMemberFor: (auth: AuthContext) => BaseContext["requireMember"];
    readonly schedulerFor: (auth: AuthContext) => SchedulerContext;
    readonly log: FunctionLog;
  },
): void {
  const { requireMemberFor, schedulerFor, log } = seams;
  const entity = definition.on.delete.entity;
  if (!store.manifest.entities.some((declared) => declared.name === entity)) {
    throw new FunctionsError("INVALID_FUNCTION", {
      message: `Hook ${name} runs on deletes of ${entity}, which the manifest does not declare.`,
    });
  }
  store.onBeforeDelete(entity, async ({ row, db, auth }) => {
    try {
      await definition.handler(
        {
          auth,
          db,
          error: raiseError,
          log,
          requireMember: requireMemberFor(auth),
          scheduler: schedulerFor(auth),
          email: unavailableEmail,
        },
        { row },
      );
    } catch (error) {
      throw toClientError(error, name);
    }
  });
}

function checkAccess(definition: FunctionDefinition, auth: AuthContext): void {
  if (auth.isAdmin) return;
  if (!auth.userId) throw new FunctionsError("AUTH_REQUIRED");
  if (auth.isGuest && definition.auth !== "guest") throw new FunctionsError("GUEST_NOT_ALLOWED");
}
