import type { IncomingMessage } from "node:http";
import type { Auth } from "@svc/auth-core";
import { type Manifest, orgMembershipOf } from "@svc/schema";
import type { LiveCallers } from "@svc/sync";
import proxyaddr from "proxy-addr";

/**
 * The client address of a live request as express computes `req.ip` with
 * the same `trust proxy` setting (`SVC_TRUST_PROXY`), so the per-address
 * bound of live connections counts clients, not the proxy in front.
 */
export function liveClientIp(
  trustProxy: boolean | number | string,
): (req: IncomingMessage) => string | undefined {
  if (trustProxy === false) return (req) => req.socket.remoteAddress;
  const trust =
    trustProxy === true
      ? () => true
      : typeof trustProxy === "number"
        ? (_address: string, hop: number) => hop < trustProxy
        : proxyaddr.compile(trustProxy.split(",").map((entry) => entry.trim()));
  return (req) => {
    try {
      return proxyaddr(req, trust);
    } catch {
      return req.socket.remoteAddress;
    }
  };
}

/** The change feed as the watcher reads it: each committed batch of entity changes. */
interface ChangeFeed {
  subscribe(
    listener: (
      changes: readonly {
        readonly entity: string;
        readonly row: Readonly<Record<string, unknown>> | null;
        readonly previous: Readonly<Record<string, unknown>> | null;
      }[],
    ) => void,
  ): () => void;
  /**
   * Called with true when the feed follows other servers again after a
   * pause (Postgres, `listen.onDemand`): changes committed meanwhile were
   * never delivered.
   */
  onFollowing?(listener: (following: boolean) => void): () => void;
}

/**
 * Re-checks open live connections when what their caller may see changes
 * outside the data they read:
 *
 * - a committed change to the user's credentials (sign-out, revoked
 *   sessions or keys, account deletion or claim, password change or reset,
 *   organization selection), on this server at once and on the others
 *   through auth-core's revocation journal;
 * - a change to an organization membership row (`auth.org`), which moves
 *   roles, through the change log every server follows while it has a live
 *   client; when it follows again after a pause, every open connection
 *   (the one that resumed it) is checked once, for a change committed
 *   between its caller's resolution and the feed's new start.
 *
 * A connection whose credential no longer resolves is closed; one whose
 * organization or roles moved goes on with the new caller.
 */
export function watchCallerChanges(input: {
  readonly auth: Auth;
  readonly changes: ChangeFeed;
  readonly manifest: Manifest;
  readonly callers: LiveCallers;
  readonly onError: (error: unknown) => void;
}): () => void {
  const { callers, onError } = input;
  const membership = orgMembershipOf(input.manifest);
  const stopRevocations = input.auth.onRevoked(({ userId }) => {
    callers.recheckUser(userId).catch(onError);
  });
  const stopChanges = input.changes.subscribe((changes) => {
    const users = new Set<string>();
    let unknown = false;
    for (const change of changes) {
      if (change.entity !== membership.entity) continue;
      let found = false;
      for (const row of [change.row, change.previous]) {
        const userId = row?.[membership.userField];
        if (typeof userId === "string") {
          users.add(userId);
          found = true;
        }
      }
      if (!found) unknown = true;
    }
    if (unknown) {
      // A change that does not name its member: everyone acting in an organization.
      callers.recheck((auth) => auth.tenantId !== null).catch(onError);
      return;
    }
    for (const userId of users) callers.recheckUser(userId).catch(onError);
  });
  const stopFollowing =
    input.changes.onFollowing?.((following) => {
      if (following) callers.recheck().catch(onError);
    }) ?? (() => undefined);
  return () => {
    stopRevocations();
    stopChanges();
    stopFollowing();
  };
}
