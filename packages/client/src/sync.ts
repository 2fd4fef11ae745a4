import type { Transport } from "./transport.js";

/** One change `GET /api/sync/pull` answers; `remove`: the row left the caller's view. */
export interface PulledChange<TRow = Record<string, unknown>> {
  /** The entry's cursor (a decimal string). */
  readonly cursor: string;
  readonly entity: string;
  readonly op: "insert" | "update" | "delete" | "remove";
  readonly rowId: string;
  /** The row after the change, for `insert` and `update` (apply updates as upserts). */
  readonly row?: TRow & { readonly id: string };
}

/** What a pull answers: the changes, where to continue, and whether more are waiting. */
export interface PullResult {
  readonly changes: readonly PulledChange[];
  /** Pass it as `since` next time. */
  readonly cursor: string;
  readonly has_more: boolean;
}

/** Options of `sync.pull`. */
export interface PullOptions {
  /** The cursor of the last pull; left out, the answer is only the current cursor. */
  readonly since?: string;
  /** Log entries to examine, 1..1000 (default 100 on the server). */
  readonly limit?: number;
  readonly signal?: AbortSignal;
}

/** The catch-up half of sync (the live transports are not built yet). */
export interface SyncClient {
  /**
   * `GET /api/sync/pull`: the changes after `since` the caller may see.
   * Rejects with `SvcError` `RESYNC_REQUIRED` (410) when the cursor is from
   * the future, past retention or before a reset: load a fresh snapshot.
   */
  pull(options?: PullOptions): Promise<PullResult>;
}

/** Builds `client.sync`. */
export function createSyncClient(transport: Transport): SyncClient {
  return {
    async pull(options = {}) {
      const query = new URLSearchParams();
      if (options.since !== undefined) query.set("since", options.since);
      if (options.limit !== undefined) query.set("limit", String(options.limit));
      const text = query.toString();
      const suffix = text === "" ? "" : `?${text}`;
      return (
        await transport.request<PullResult>({
          method: "GET",
          path: `/api/sync/pull${suffix}`,
          ...(options.signal !== undefined && { signal: options.signal }),
        })
      ).data;
    },
  };
}
