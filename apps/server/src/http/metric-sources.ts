import type { Auth } from "@svc/auth-core";
import type { Billing } from "@svc/billing";
import type { JobQueue } from "@svc/jobs";
import type { ChangeLog, LiveCallers } from "@svc/sync";
import type { ServerMetrics } from "./metrics.js";

/**
 * Points `/metrics` at what it reads at each scrape: the credential and
 * entitlement caches' counters, the live connections, the job counts and,
 * on Postgres, the tail of the other servers' commits.
 */
export function watchServerMetrics(
  metrics: ServerMetrics,
  sources: {
    readonly auth: Pick<Auth, "cacheStats">;
    readonly billing: Pick<Billing, "paymentsEnabled" | "entitlementCacheStats">;
    readonly changeLog: Pick<ChangeLog, "feedStatus">;
    readonly callers: Pick<LiveCallers, "connections">;
    readonly jobs: Pick<JobQueue, "counts">;
    /** On Postgres: the cross-server tail (held back, pending, listening). */
    readonly postgres: boolean;
  },
): void {
  const { auth, billing, changeLog, callers, jobs } = sources;
  metrics.watchCaches({
    session: () => auth.cacheStats().session,
    api_key: () => auth.cacheStats().apiKey,
    ...(billing.paymentsEnabled && { entitlements: () => billing.entitlementCacheStats() }),
  });
  if (sources.postgres) metrics.watchFeed(() => changeLog.feedStatus());
  metrics.watchLive(() => callers.connections);
  metrics.watchJobs(() => jobs.counts());
}
