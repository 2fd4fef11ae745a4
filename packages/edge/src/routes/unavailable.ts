import { EdgeError } from "../errors.js";

/**
 * The server's features an edge Worker does not serve, by path prefix, each
 * with the reason and what to use instead. They answer 501
 * `NOT_AVAILABLE_ON_EDGE` (never 404 or 500), so a client learns why.
 */
export const UNAVAILABLE_ON_EDGE: readonly { readonly prefix: string; readonly reason: string }[] =
  [
    {
      prefix: "/ws",
      reason:
        "Live sync needs long-lived WebSocket connections and a change feed; run the svc server (container or single host) for live queries.",
    },
    {
      prefix: "/events",
      reason:
        "Live sync over Server-Sent Events needs a long-lived connection and a change feed; run the svc server for live queries.",
    },
    {
      prefix: "/api/sync/",
      reason: "Sync needs the server's change log; run the svc server for sync.",
    },
    {
      prefix: "/shard/",
      reason:
        "Realtime rooms keep their state in one server process; run the svc server for rooms.",
    },
    {
      prefix: "/api/admin/jobs",
      reason:
        "Jobs need a process that keeps running; run the svc server, or call a function from a Cron Trigger of your own.",
    },
    {
      prefix: "/api/files",
      reason:
        "File storage needs a disk or an S3 client; run the svc server, or store files in R2 from your own Worker.",
    },
    {
      prefix: "/studio",
      reason: "The studio is a dev-mode tool of the svc server; run `svc dev` locally.",
    },
    {
      prefix: "/api/billing/",
      reason:
        "Billing is not part of the edge worker yet; run the svc server for checkout and webhooks.",
    },
    {
      prefix: "/api/auth/login/",
      reason: "OAuth sign-in is not part of the edge worker yet; run the svc server for OAuth.",
    },
    {
      prefix: "/api/auth/callback/",
      reason: "OAuth sign-in is not part of the edge worker yet; run the svc server for OAuth.",
    },
    {
      prefix: "/api/auth/magic-link/",
      reason: "Magic links are not part of the edge worker yet; use magic codes.",
    },
    {
      prefix: "/api/auth/phone/",
      reason: "Phone sign-in is not part of the edge worker yet; run the svc server.",
    },
    {
      prefix: "/api/auth/totp",
      reason: "TOTP second factors are not part of the edge worker yet; run the svc server.",
    },
    {
      prefix: "/metrics",
      reason: "Prometheus metrics describe one process; use Cloudflare's Workers analytics.",
    },
  ];

/** The 501 for a path the edge does not serve, or null. */
export function unavailableOnEdge(path: string): EdgeError | null {
  const entry = UNAVAILABLE_ON_EDGE.find(
    ({ prefix }) => path === prefix.replace(/\/$/, "") || path.startsWith(prefix),
  );
  return entry === undefined ? null : new EdgeError("NOT_AVAILABLE_ON_EDGE", entry.reason);
}
