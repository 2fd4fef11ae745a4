import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { AuthContext } from "@svc/schema";
import { type CallerSources, resolveCaller } from "@svc/schema/http";

/**
 * What the live transports read of a request to resolve its caller: a
 * node `IncomingMessage` fits. A connection keeps a copy of just these
 * fields (never the request itself) to resolve its caller again later.
 */
export interface LiveRequest {
  readonly headers: {
    readonly cookie?: string | undefined;
    readonly "user-agent"?: string | undefined;
  };
  readonly socket: { readonly remoteAddress?: string | undefined };
}

/**
 * Resolves a live request's caller through @svc/schema's `resolveCaller`,
 * the one entry point the HTTP gate uses too: `bearer` is the token of
 * `Authorization: Bearer <token>`, else of a `bearer.<token>` subprotocol;
 * undefined when there is neither (the session cookie is read then). Null
 * for no caller or a token no resolver accepts; throws what a resolver
 * throws (a bad API key). Called at connect and again whenever the
 * connection's caller is re-checked.
 */
export async function authenticateLive(
  req: LiveRequest,
  sources: CallerSources,
  bearer: string | undefined,
): Promise<AuthContext | null> {
  const found = await resolveCaller(req, bearer === undefined ? sources : { ...sources, bearer });
  return found.status === "bearer" || found.status === "cookie" ? found.caller : null;
}

/** Default bound of open live connections (WebSocket, SSE, rooms together) of one user: 32. */
export const DEFAULT_MAX_CONNECTIONS_PER_USER = 32;
/** Default bound of open live connections from one client address (an IPv6 /64 counts as one): 256. */
export const DEFAULT_MAX_CONNECTIONS_PER_IP = 256;
/** Default interval of the sweep that re-checks every connection's caller (expired sessions, JWTs): 60 s. */
export const DEFAULT_RECHECK_INTERVAL_MS = 60_000;

/** The transport a live connection came through. */
export type LiveTransport = "websocket" | "sse" | "room";

/** One open subscription of a connection, as a listing shows it. */
export type LiveSubscriptionInfo =
  | {
      readonly id: string;
      readonly entity: string;
      /** The subscription's equality filter, as the client sent it. */
      readonly where?: Readonly<Record<string, unknown>>;
    }
  | {
      readonly id: string;
      /** A live query's function name (never its arguments). */
      readonly query: string;
    };

/**
 * One open connection as `LiveCallers.list` shows it: who (the resolved
 * caller, never a credential) and what (transport, room, subscriptions).
 */
export interface LiveConnectionInfo {
  /** Random, names the connection for `disconnect` while it is open. */
  readonly id: string;
  /** Undefined when the transport did not say. */
  readonly transport: LiveTransport | undefined;
  /** When it was admitted, unix ms. */
  readonly openedAt: number;
  readonly userId: string | null;
  /** How the caller proved who it is (`session`, `api-key`, `jwt`, `admin`, ...). */
  readonly via: AuthContext["via"];
  readonly isAdmin: boolean;
  readonly isGuest: boolean;
  readonly tenantId: string | null;
  readonly roles: readonly string[];
  /** The client address the connection counts against (see `clientIp`). */
  readonly address: string | undefined;
  readonly userAgent: string | undefined;
  /** What it subscribes to now (empty for a room socket). */
  readonly subscriptions: readonly LiveSubscriptionInfo[];
  /** The room instance a room socket joined. */
  readonly room?: { readonly name: string; readonly key: string | null };
}

/** What a transport does when a re-check finds its connection's caller changed. */
export interface LiveConnectionHandle {
  /**
   * The credential no longer resolves (signed out, revoked, expired, the
   * account deleted or claimed) or now stands for another user: close.
   */
  revoked(): void;
  /**
   * The same user in another context (organization, roles, entitlements):
   * go on as `auth`, dropping what it may no longer see.
   */
  changed(auth: AuthContext): void;
  /** What the connection subscribes to now, for `list`. Default: nothing. */
  subscriptions?(): readonly LiveSubscriptionInfo[];
  /**
   * Closes the connection at an operator's request (`disconnect`); the
   * client may reconnect. Default: `revoked()`.
   */
  close?(): void;
}

/** One connection as the registry holds it. */
interface Entry {
  readonly id: string;
  readonly transport: LiveTransport | undefined;
  readonly room: { readonly name: string; readonly key: string | null } | undefined;
  readonly openedAt: number;
  readonly address: string | undefined;
  auth: AuthContext;
  readonly request: LiveRequest;
  readonly bearer: string | undefined;
  readonly ipKey: string | undefined;
  readonly handle: LiveConnectionHandle;
  /** The re-check in flight, so overlapping triggers cost one resolution. */
  checking: Promise<void> | undefined;
  /** Another trigger arrived while a re-check ran: run once more after it. */
  again: boolean;
}

/** Options of `createLiveCallers`. */
export interface LiveCallersOptions {
  /** Where callers come from (bearer resolvers, session cookie): what the transports resolve with. */
  readonly authenticate: CallerSources;
  /** Open connections one user may hold; the admin token is not counted. Default 32. */
  readonly maxPerUser?: number;
  /** Open connections from one client address. Default 256. */
  readonly maxPerIp?: number;
  /**
   * The client address a request counts against (behind a trusted proxy:
   * the forwarded one). Default: the socket's peer address. IPv6 addresses
   * are grouped by /64 either way.
   */
  readonly clientIp?: (req: IncomingMessage) => string | undefined;
  /** Interval of the sweep that re-checks every open connection. Default 60 s; 0 turns it off. */
  readonly recheckIntervalMs?: number;
  /** Receives unexpected errors of a re-check. Default: `console.error`. */
  readonly onError?: (error: unknown) => void;
  /** Unix ms, for `LiveConnectionInfo.openedAt`. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * Called when the first connection is admitted; what it returns is
   * called when the last one goes. svc's server passes the change log's
   * `follow`, so a server with no live client stops reading the other
   * servers' commits (`listen.onDemand`). It runs before `admit` returns,
   * so the connection's first cursor is read after it.
   */
  readonly hold?: () => () => void;
}

/** Why a connection was not admitted. */
export type AdmitRefusal = "TOO_MANY_CONNECTIONS";

/**
 * The callers of every open live connection of a server (WebSocket, SSE,
 * rooms), shared by the transports: it bounds connections per user and per
 * client address, and re-checks callers when their credentials change, so
 * a sign-out, a revoked key, a deleted account or a membership change
 * reaches sockets that are already open.
 */
export interface LiveCallers {
  /** Open connections registered. */
  readonly connections: number;
  /**
   * Registers a connection whose caller resolved to `auth`; returns the
   * function that unregisters it, or the refusal when a bound is reached.
   */
  admit(
    input: {
      readonly auth: AuthContext;
      readonly req: IncomingMessage;
      readonly bearer: string | undefined;
      /** For `list`: the transport, and the room a room socket joined. */
      readonly transport?: LiveTransport;
      readonly room?: { readonly name: string; readonly key: string | null };
    },
    handle: LiveConnectionHandle,
  ): (() => void) | AdmitRefusal;
  /**
   * Every open connection, oldest first: its caller as resolved (user id,
   * how it signed in, roles; never a token, cookie or key), transport,
   * address, user agent, room and subscriptions. Read-only: for an
   * operator's view.
   */
  list(): LiveConnectionInfo[];
  /**
   * Closes the open connection `id` names (`handle.close`, else
   * `handle.revoked`); false when there is none (it closed meanwhile).
   */
  disconnect(id: string): boolean;
  /** Resolves again the caller of every connection of `userId`; resolves when each has acted. */
  recheckUser(userId: string): Promise<void>;
  /** Resolves again the caller of every connection that `select` picks (default: all). */
  recheck(select?: (auth: AuthContext) => boolean): Promise<void>;
  /** Stops the periodic sweep. */
  close(): void;
}

/** The group an address counts in: IPv4 as is, IPv6 by its /64 (one customer's usual allocation). */
export function addressGroup(address: string | undefined): string | undefined {
  if (address === undefined || address === "") return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return mapped[1];
  if (!address.includes(":")) return address;
  const [head = "", tail = ""] = address.split("%")[0]?.split("::") ?? [];
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = address.includes("::")
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group || "0", 16).toString(16))
    .join(":")}::/64`;
}

/** Whether two resolutions of one credential are the same caller in the same context. */
export function sameCaller(a: AuthContext, b: AuthContext): boolean {
  return (
    a.userId === b.userId &&
    a.isAdmin === b.isAdmin &&
    a.isGuest === b.isGuest &&
    a.via === b.via &&
    a.sessionId === b.sessionId &&
    a.tenantId === b.tenantId &&
    sameList(a.roles, b.roles) &&
    sameList(a.entitlements, b.entitlements)
  );
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const sorted = [...b].sort();
  return [...a].sort().every((value, index) => value === sorted[index]);
}

function increment(counts: Map<string, number>, key: string | undefined | null): void {
  if (key === undefined || key === null) return;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function decrement(counts: Map<string, number>, key: string | undefined | null): void {
  if (key === undefined || key === null) return;
  const next = (counts.get(key) ?? 1) - 1;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}

/** Builds the registry; see `LiveCallers`. */
export function createLiveCallers(options: LiveCallersOptions): LiveCallers {
  const maxPerUser = options.maxPerUser ?? DEFAULT_MAX_CONNECTIONS_PER_USER;
  const maxPerIp = options.maxPerIp ?? DEFAULT_MAX_CONNECTIONS_PER_IP;
  const clientIp = options.clientIp ?? ((req: IncomingMessage) => req.socket.remoteAddress);
  const onError =
    options.onError ?? ((error: unknown) => console.error("[@svc/sync] live caller check", error));
  const now = options.now ?? Date.now;
  const entries = new Set<Entry>();
  const byUser = new Map<string, Set<Entry>>();
  const perIp = new Map<string, number>();
  let release: (() => void) | undefined;

  const resolveAgain = async (entry: Entry): Promise<void> => {
    let next: AuthContext | null;
    try {
      next = await authenticateLive(entry.request, options.authenticate, entry.bearer);
    } catch {
      // The resolvers throw for a credential that is no longer valid (a revoked key).
      next = null;
    }
    if (!entries.has(entry)) return;
    const current = entry.auth;
    if (
      next === null ||
      next.userId !== current.userId ||
      next.isAdmin !== current.isAdmin ||
      (!next.isAdmin && next.userId === null)
    ) {
      remove(entry);
      entry.handle.revoked();
      return;
    }
    if (sameCaller(current, next)) return;
    entry.auth = next;
    entry.handle.changed(next);
  };

  const check = (entry: Entry): Promise<void> => {
    if (entry.checking !== undefined) {
      // A change may have committed after the running resolution read.
      entry.again = true;
      return entry.checking;
    }
    const run = async (): Promise<void> => {
      do {
        entry.again = false;
        await resolveAgain(entry);
      } while (entry.again && entries.has(entry));
    };
    entry.checking = run()
      .catch(onError)
      .finally(() => {
        entry.checking = undefined;
      });
    return entry.checking;
  };

  const remove = (entry: Entry): void => {
    if (!entries.delete(entry)) return;
    const userId = entry.auth.isAdmin ? null : entry.auth.userId;
    if (userId !== null) {
      const set = byUser.get(userId);
      set?.delete(entry);
      if (set?.size === 0) byUser.delete(userId);
    }
    decrement(perIp, entry.ipKey);
    if (entries.size === 0 && release !== undefined) {
      const held = release;
      release = undefined;
      held();
    }
  };

  const recheck = async (select: (auth: AuthContext) => boolean = () => true): Promise<void> => {
    await Promise.all([...entries].filter((entry) => select(entry.auth)).map(check));
  };

  const sweepMs = options.recheckIntervalMs ?? DEFAULT_RECHECK_INTERVAL_MS;
  const sweep =
    sweepMs > 0
      ? setInterval(() => {
          recheck().catch(onError);
        }, sweepMs)
      : undefined;
  sweep?.unref();

  return {
    get connections() {
      return entries.size;
    },
    admit(input, handle) {
      const { auth, req, bearer } = input;
      const userId = auth.isAdmin ? null : auth.userId;
      const address = clientIp(req);
      const ipKey = auth.isAdmin ? undefined : addressGroup(address);
      if (userId !== null && (byUser.get(userId)?.size ?? 0) >= maxPerUser) {
        return "TOO_MANY_CONNECTIONS";
      }
      if (ipKey !== undefined && (perIp.get(ipKey) ?? 0) >= maxPerIp) return "TOO_MANY_CONNECTIONS";
      const entry: Entry = {
        id: randomBytes(12).toString("hex"),
        transport: input.transport,
        room: input.room,
        openedAt: now(),
        address,
        auth,
        // Only what resolving needs, so the request is not kept alive.
        request: {
          headers: { cookie: req.headers.cookie, "user-agent": req.headers["user-agent"] },
          socket: { remoteAddress: req.socket.remoteAddress },
        },
        bearer,
        ipKey,
        handle,
        checking: undefined,
        again: false,
      };
      entries.add(entry);
      if (entries.size === 1 && release === undefined && options.hold !== undefined) {
        release = options.hold();
      }
      if (userId !== null) {
        let set = byUser.get(userId);
        if (set === undefined) {
          set = new Set();
          byUser.set(userId, set);
        }
        set.add(entry);
      }
      increment(perIp, ipKey);
      return () => remove(entry);
    },
    async recheckUser(userId) {
      const set = byUser.get(userId);
      if (set !== undefined) await Promise.all([...set].map(check));
    },
    recheck,
    list() {
      return [...entries].map((entry): LiveConnectionInfo => {
        const { auth } = entry;
        return {
          id: entry.id,
          transport: entry.transport,
          openedAt: entry.openedAt,
          userId: auth.userId,
          via: auth.via,
          isAdmin: auth.isAdmin,
          isGuest: auth.isGuest,
          tenantId: auth.tenantId,
          roles: [...auth.roles],
          address: entry.address,
          userAgent: entry.request.headers["user-agent"],
          subscriptions: entry.handle.subscriptions?.() ?? [],
          ...(entry.room !== undefined && { room: entry.room }),
        };
      });
    },
    disconnect(id) {
      for (const entry of entries) {
        if (entry.id !== id) continue;
        if (entry.handle.close !== undefined) entry.handle.close();
        else {
          remove(entry);
          entry.handle.revoked();
        }
        return true;
      }
      return false;
    },
    close() {
      if (sweep !== undefined) clearInterval(sweep);
    },
  };
}
