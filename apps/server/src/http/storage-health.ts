import { isStorageFull } from "@svc/schema";

/** How often, at most, `/readyz` probes for room while the storage is marked full. */
export const STORAGE_PROBE_INTERVAL_MS = 5000;

/**
 * Whether the server's storage has room, as far as the last failures and
 * probes tell. Failures are reported to it (`observe`); readiness asks it
 * (`check`).
 */
export interface StorageHealth {
  /** Tells of a failure; one whose cause is a full disk or database marks the storage full. */
  observe(error: unknown): void;
  /**
   * Resolves with undefined while the storage is not marked full, and with
   * the failure that marked it while it is. At most every
   * `STORAGE_PROBE_INTERVAL_MS` it probes first, and a probe that finds
   * room clears the mark, so readiness comes back by itself. Rejects when
   * the probe fails for another reason (the database does not answer).
   */
  check(): Promise<unknown>;
}

/** Options of `createStorageHealth`. */
export interface StorageHealthOptions {
  /** Resolves when there is room for writes (`store.probeStorage`). */
  readonly probe: () => Promise<void>;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * A load balancer must stop sending traffic to a server whose writes fail
 * for want of room, and send it again once there is room: a failure whose
 * cause is a full disk or database marks the storage full, and `/readyz`
 * answers not ready until a probe (no more often than every five seconds)
 * finds room again.
 */
export function createStorageHealth(options: StorageHealthOptions): StorageHealth {
  const now = options.now ?? Date.now;
  let full: { error: unknown; probedAt: number } | undefined;
  let probing: Promise<unknown> | undefined;

  const probe = async (): Promise<unknown> => {
    try {
      await options.probe();
      full = undefined;
      return undefined;
    } catch (error) {
      if (!isStorageFull(error)) throw error;
      full = { error, probedAt: now() };
      return error;
    }
  };

  return {
    observe(error) {
      if (isStorageFull(error)) full = { error, probedAt: now() };
    },
    async check() {
      if (full === undefined) return undefined;
      if (now() - full.probedAt < STORAGE_PROBE_INTERVAL_MS) return full.error;
      // One probe at a time, however many readiness checks arrive meanwhile.
      probing ??= probe().finally(() => {
        probing = undefined;
      });
      return probing;
    },
  };
}
