import { useCallback, useSyncExternalStore } from "react";
import type { QueueState } from "../write-queue.js";
import { useSvcClient } from "./provider.js";

/**
 * The write queue's state (`client.queue.state`), re-rendering when it
 * changes: for an "offline, 3 changes waiting" badge.
 *
 * @example
 * function SyncBadge() {
 *   const { status, pending } = useWriteQueue();
 *   if (pending.length === 0) return null;
 *   return <p>{status === "waiting" ? "Offline" : "Saving"}: {pending.length} change(s)</p>;
 * }
 */
export function useWriteQueue(): QueueState {
  const client = useSvcClient();
  const subscribe = useCallback(
    (notify: () => void) =>
      client.queue.subscribe((event) => {
        if (event.type === "state") notify();
      }),
    [client],
  );
  const snapshot = (): QueueState => client.queue.state;
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}
