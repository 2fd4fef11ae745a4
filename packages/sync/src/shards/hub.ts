import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type CompiledPolicies, checkJoin, type ExistsResolver } from "@svc/policy-engine";
import type { AuthContext, RoomDef, RoomLogic } from "@svc/schema";
import type { CallerSources } from "@svc/schema/http";
import { MAX_SHARD_FRAME_BYTES, SHARD_PROTOCOL } from "@svc/schema/live-frames";
import { createFanout } from "../fanout/peers.js";
import { createUpgradeServer } from "../fanout/socket-peer.js";
import { createLiveCallers, type LiveCallers } from "../live-callers.js";
import { pathOf, refuse, refuseUpgrade, upgradeCaller } from "../upgrade.js";
import { OPERATOR_CLOSE, WS_CLOSE_CODES } from "../ws-frames.js";
import { createClusterRooms } from "./cluster.js";
import type { ShardCluster } from "./cluster-api.js";
import { type MemberSocket, openMember } from "./member.js";
import { createRoomInstance, type ShardTimers } from "./room.js";
import { createLocalRooms, type InstanceFactory, type RoomDirectory } from "./rooms.js";

/** The subprotocol of svc's shard frames (shared with the client); a client may offer it beside `bearer.<token>`. */
export { SHARD_PROTOCOL };
/** Default bound of a member's outgoing queue: 1 MiB. */
export const DEFAULT_SHARD_MAX_QUEUE = 1024 * 1024;
/** Default interval of `onTick` when neither the manifest nor the logic sets one: 1 s. */
export const DEFAULT_SHARD_TICK_MS = 1000;
/** Default interval of the server's keepalive pings: 30 s. */
export const DEFAULT_SHARD_KEEPALIVE_MS = 30_000;

const ROOM_KEY = /^[A-Za-z0-9_-]{1,128}$/;

/** Options of `attachShards`. */
export interface ShardOptions {
  /** The path prefix served: `<path>/<kind>` and `<path>/<kind>/<key>`. Default `/shard`. */
  readonly path?: string;
  /**
   * Leave upgrades outside the prefix to another listener instead of
   * refusing them (when several transports share one server). Default false.
   */
  readonly shared?: boolean;
  /**
   * The manifest's compiled policies (`compilePolicies(manifest)`, or
   * `sync.policies.compiled`): the room kinds (`manifest.rooms`) and their
   * join rules. A kind not declared there is refused with 404.
   */
  readonly policies: CompiledPolicies;
  /** Where callers come from; the contract of `attachWebSocket`'s `authenticate`. */
  readonly authenticate: CallerSources;
  /**
   * The live callers shared with the other transports (see `attachWebSocket`):
   * a revoked caller's member sockets close with 1008, and a caller whose
   * organization or roles changed is held to the join rule again. Default: its own.
   */
  readonly callers?: LiveCallers;
  /**
   * Origins allowed to open sockets (requests without `Origin` pass, the
   * server's own origin always does); `true` trusts every origin (dev mode).
   * Others are refused with 403.
   */
  readonly trustedOrigins: true | readonly string[];
  /** Server-side logic by room kind, usually `runner.rooms()` from @svc/functions. */
  readonly logic?: ReadonlyMap<string, RoomLogic>;
  /**
   * Makes the resolver of `exists(...)` in join rules, once per join, e.g.
   * `() => cachedExistsResolver(store.systemReader())`. Without it a join
   * rule that reaches `exists` fails the join (1011).
   */
  readonly existsResolver?: () => ExistsResolver;
  /** Bytes a member's outgoing buffer may hold before it is closed with 1013. Default 1 MiB. */
  readonly maxQueue?: number;
  /** Interval of keepalive pings; a peer that missed the previous one is terminated. Default 30 s. */
  readonly keepaliveMs?: number;
  /** The clock of ticks (`tick.now`). Default `Date.now`. */
  readonly now?: () => number;
  /** The timers ticks run on. Default: the global `setInterval` / `clearInterval`. */
  readonly timers?: ShardTimers;
  /** Receives unexpected errors (and failures of `onLeave` / `onTick`). Default: `console.error`. */
  readonly onError?: (error: unknown) => void;
  /**
   * Shares rooms with every other server on the same Postgres database
   * (`createShardCluster`, ready before the hub serves): each room
   * instance then runs on one server, its home, and members connected to
   * any server meet in it. Without it rooms live in this process. The
   * cluster is its owner's to close, after the hub.
   */
  readonly cluster?: ShardCluster;
}

/** The shard transport attached to an HTTP server. */
export interface ShardHub {
  /** Open, joined or joining sockets. */
  readonly connections: number;
  /** Room instances with members (or joins in flight). */
  readonly rooms: number;
  /**
   * The number of members of one room instance (0 when it does not
   * exist). With a cluster: on the room's home every member on every
   * server; elsewhere the members the home last told of.
   */
  members(name: string, key?: string | null): number;
  /**
   * Serves the same rooms on another server too (the main port beside the
   * shard port): members of one room meet whichever server they came
   * through. `shared` as in `ShardOptions`.
   */
  attach(server: Server, options?: { shared?: boolean }): void;
  /**
   * Refuses new upgrades (503), closes every socket with 1001 and resolves
   * once they are closed; sockets still open after `timeoutMs` (default
   * 1000) are terminated.
   */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

function reportError(error: unknown): void {
  console.error("[@svc/sync] shard transport error", error);
}

const globalTimers: ShardTimers = {
  setInterval: (tick, ms) => setInterval(tick, ms),
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
};

/** `<path>/<kind>[/<key>]` to the room it names, or null. */
function roomOf(path: string, prefix: string): { name: string; key: string | null } | null {
  if (!path.startsWith(`${prefix}/`)) return null;
  const [name, key, ...rest] = path.slice(prefix.length + 1).split("/");
  if (name === undefined || name === "" || rest.length > 0) return null;
  if (key !== undefined && !ROOM_KEY.test(key)) return null;
  return { name, key: key ?? null };
}

/**
 * Serves realtime rooms over WebSocket on `server`'s `upgrade` event at
 * `/shard/<kind>` and `/shard/<kind>/<key>`: presence, messages to the
 * room instance's members only, and optional server-side room logic
 * (`onJoin`, `onLeave`, `onMessage`, `onTick`). Frames: `ShardClientFrame`,
 * `ShardServerFrame`.
 *
 * - A kind the manifest's `rooms` do not declare, or a bad key: 404. An
 *   untrusted `Origin`: 403. Both before the upgrade.
 * - Credentials as for `/ws` (bearer header, `bearer.<token>` subprotocol,
 *   cookie through `authenticate`); without a user or the admin token the
 *   socket is closed with 1008. A join rule that refuses: 1008 with reason
 *   `join denied` (the admin token passes every join rule). A full
 *   instance (`maxMembers`): 1013. `onJoin` refusing: an `error` frame,
 *   then 1008 with its code as reason.
 * - `onTick` runs every `tickMs` (manifest entry, else the logic's, else
 *   1 s) while the instance has members; an instance and its `state` are
 *   dropped when the last member leaves.
 * - A member whose outgoing buffer passes `maxQueue` is closed with 1013.
 *
 * Upgrades for other paths are refused with 404, unless `shared` leaves
 * them to the server's other transports. With `cluster`, rooms are shared
 * by every server on one Postgres database (see `createShardCluster`).
 *
 * @example
 * const shards = attachShards(shardServer, {
 *   policies: sync.policies.compiled,
 *   logic: runner.rooms(),
 *   trustedOrigins: ["https://app.example.com"],
 *   authenticate: { resolvers: [(token) => resolveToken(token)] },
 * });
 * await shards.close();
 */
export function attachShards(server: Server, options: ShardOptions): ShardHub {
  const prefix = options.path ?? "/shard";
  const { policies, trustedOrigins } = options;
  const onError = options.onError ?? reportError;
  const timers = options.timers ?? globalTimers;
  const now = options.now ?? Date.now;
  const memberContext = { maxQueue: options.maxQueue ?? DEFAULT_SHARD_MAX_QUEUE, onError };
  const kinds = new Map<string, RoomDef>(
    (policies.manifest.rooms ?? []).map((room) => [room.name, room]),
  );
  const sockets = createFanout<MemberSocket>({
    keepaliveMs: options.keepaliveMs ?? DEFAULT_SHARD_KEEPALIVE_MS,
  });
  const callers = options.callers ?? createLiveCallers({ authenticate: options.authenticate });
  let closed = false;
  const wss = createUpgradeServer(SHARD_PROTOCOL, MAX_SHARD_FRAME_BYTES);

  const make: InstanceFactory = (kind, key, onEmpty) => {
    const logic = options.logic?.get(kind.name);
    return createRoomInstance({
      name: kind.name,
      key,
      maxMembers: kind.maxMembers,
      logic,
      tickMs: kind.tickMs ?? logic?.tickMs ?? DEFAULT_SHARD_TICK_MS,
      timers,
      now,
      onError,
      onEmpty,
    });
  };
  const rooms: RoomDirectory =
    options.cluster === undefined
      ? createLocalRooms(make)
      : createClusterRooms({
          relay: options.cluster,
          kinds,
          make,
          maxQueue: memberContext.maxQueue,
          onError,
        });

  /** Whether the join rule admits the caller; null when it could not be decided. */
  const admitted = async (
    auth: AuthContext,
    name: string,
    key: string | null,
  ): Promise<boolean | null> => {
    if (auth.isAdmin) return true;
    const rule = policies.rooms.get(name);
    if (rule === undefined) return false;
    try {
      return await checkJoin(rule, { auth, name, key }, options.existsResolver?.());
    } catch (error) {
      onError(error);
      return null;
    }
  };

  const onUpgrade = (shared: boolean, req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const requested = pathOf(req.url);
    if (shared && !requested.startsWith(`${prefix}/`)) return;
    socket.on("error", () => socket.destroy());
    const target = roomOf(requested, prefix);
    const kind = target === null ? undefined : kinds.get(target.name);
    if (target === null || kind === undefined) {
      refuse(socket, 404, "Not Found");
      return;
    }
    if (refuseUpgrade(req, socket, { closed, trustedOrigins })) return;
    void (async () => {
      const caller = await upgradeCaller(req, options.authenticate);
      const verdict = "auth" in caller ? await admitted(caller.auth, kind.name, target.key) : false;
      if (socket.destroyed) return;
      if (closed) {
        refuse(socket, 503, "Service Unavailable");
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on("error", () => undefined);
        if ("reason" in caller) {
          ws.close(WS_CLOSE_CODES.POLICY_VIOLATION, caller.reason);
          return;
        }
        if (verdict !== true) {
          if (verdict === null) ws.close(WS_CLOSE_CODES.INTERNAL_ERROR, "join rule failed");
          else ws.close(WS_CLOSE_CODES.POLICY_VIOLATION, "join denied");
          return;
        }
        const release = callers.admit(
          {
            auth: caller.auth,
            req,
            bearer: caller.bearer,
            transport: "room",
            room: { name: kind.name, key: target.key },
          },
          {
            revoked: () => ws.close(WS_CLOSE_CODES.POLICY_VIOLATION, "credential revoked"),
            // An operator's close: the client rejoins after its backoff.
            close: () => ws.close(WS_CLOSE_CODES.TRY_AGAIN_LATER, OPERATOR_CLOSE),
            changed: (auth) => {
              // Still a member only while the join rule admits the caller as it is now.
              void admitted(auth, kind.name, target.key).then((verdict) => {
                if (verdict !== true) ws.close(WS_CLOSE_CODES.POLICY_VIOLATION, "join denied");
              });
            },
          },
        );
        if (typeof release === "string") {
          ws.close(WS_CLOSE_CODES.TRY_AGAIN_LATER, release);
          return;
        }
        const member = openMember(ws, caller.auth, rooms.port(kind, target.key), memberContext);
        sockets.add(member);
        ws.on("close", () => {
          sockets.delete(member);
          release();
        });
      });
    })().catch(onError);
  };
  const attached: {
    server: Server;
    listener: (...args: [IncomingMessage, Duplex, Buffer]) => void;
  }[] = [];
  const attach = (target: Server, shared: boolean): void => {
    const listener = (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      onUpgrade(shared, req, socket, head);
    target.on("upgrade", listener);
    attached.push({ server: target, listener });
  };
  attach(server, options.shared === true);

  return {
    get connections() {
      return sockets.size;
    },
    get rooms() {
      return rooms.rooms;
    },
    members(name, key = null) {
      return rooms.members(name, key);
    },
    attach(target, attachOptions = {}) {
      if (!closed) attach(target, attachOptions.shared === true);
    },
    async close(closeOptions = {}) {
      if (!closed) {
        closed = true;
        for (const { server: target, listener } of attached) target.off("upgrade", listener);
        sockets.stop();
        // A registry of its own stops with it; a shared one is its owner's to close.
        if (options.callers === undefined) callers.close();
      }
      await sockets.drain(closeOptions.timeoutMs);
      wss.close();
      // With a cluster: rooms run here that have members elsewhere move.
      await rooms.close();
    },
  };
}
