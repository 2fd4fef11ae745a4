import type { AuthContext } from "@svc/schema";
import type { EntityTables } from "@svc/store";
import type { Kysely } from "kysely";
import type { JobQueue } from "./queue.js";

/** One call to run later, as @svc/functions' `ctx.scheduler` hands it over. */
export interface ScheduledCallRequest {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** Unix ms. */
  readonly runAt: number;
  readonly auth: AuthContext;
}

/**
 * The queue seen through @svc/functions' `JobScheduler` seam (the shapes
 * match; neither package imports the other). Pass it to
 * `createFunctionRunner({ scheduler })`.
 */
export interface QueueScheduler {
  schedule(trx: Kysely<EntityTables> | undefined, request: ScheduledCallRequest): Promise<string>;
  cancel(trx: Kysely<EntityTables> | undefined, id: string): Promise<boolean>;
  /** After a transaction that scheduled calls commits. */
  committed(): void;
}

/**
 * Adapts a queue to `createFunctionRunner`'s `scheduler` option: a call
 * scheduled in a mutation is written in the mutation's transaction; one
 * scheduled in an action is written at once. `onScheduled` runs when
 * scheduled calls become visible, after an action's schedule or a
 * mutation's commit (pass `() => worker.wake()`, so they need not wait for
 * the next poll).
 *
 * @example
 * const runner = createFunctionRunner({ store, functions, scheduler: createQueueScheduler(queue) });
 */
export function createQueueScheduler(
  queue: JobQueue,
  options: { readonly onScheduled?: () => void } = {},
): QueueScheduler {
  return {
    schedule: (trx, request) =>
      queue.enqueue(trx, {
        name: request.name,
        args: request.args,
        runAt: request.runAt,
        auth: request.auth,
      }),
    cancel: (trx, id) => queue.cancel(id, trx),
    committed: () => options.onScheduled?.(),
  };
}
