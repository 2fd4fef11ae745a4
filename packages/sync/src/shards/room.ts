import type { AuthContext, RoomHandle, RoomLogic, RoomMember } from "@svc/schema";
import type { ShardMemberView, ShardServerFrame } from "@svc/schema/live-frames";

/** The timers ticks run on; inject fakes in tests. Default: the global ones. */
export interface ShardTimers {
  setInterval(tick: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** A joined (or joining) connection, as its room holds it. */
export interface RoomSeat {
  readonly connectionId: string;
  readonly userId: string | null;
  readonly auth: AuthContext;
  presence: unknown;
  /** Sends one frame to this member (the connection applies backpressure). */
  send(frame: ShardServerFrame): void;
  /** Closes this member's socket (its `leave` follows as for any close). */
  close(code: number, reason: string): void;
}

/**
 * How a join ended: joined, the room is full, `onJoin` threw `error`, or
 * (several servers) the room could not be reached: try again.
 */
export type JoinOutcome =
  | { readonly joined: true }
  | { readonly full: true }
  | { readonly error: unknown }
  | { readonly unavailable: true };

/** What a room instance needs from its hub. */
export interface RoomInstanceContext {
  readonly name: string;
  readonly key: string | null;
  readonly maxMembers: number;
  readonly logic: RoomLogic | undefined;
  /** Interval of `onTick`. */
  readonly tickMs: number;
  readonly timers: ShardTimers;
  readonly now: () => number;
  /** Receives failures of `onLeave` and `onTick` (nobody else would see them). */
  readonly onError: (error: unknown) => void;
  /** Called once the instance has neither members nor joins in flight: drop it. */
  readonly onEmpty: () => void;
}

/** One room instance (`/shard/<name>/<key>`): its members, state, logic and ticks. */
export interface RoomInstance {
  readonly handle: RoomHandle;
  readonly size: number;
  /**
   * Runs `onJoin` (one handler at a time per instance) and, unless it
   * throws or the room is full, adds the seat: the joiner gets `welcome`,
   * the others `join`. `stillOpen` is asked after `onJoin`: a socket closed
   * meanwhile does not join.
   */
  join(seat: RoomSeat, stillOpen: () => boolean): Promise<JoinOutcome>;
  /** Removes a member (the others get `leave`), then runs `onLeave`. */
  leave(connectionId: string): void;
  /** Replaces a member's presence; the others get `presence`. */
  presence(connectionId: string, data: unknown): void;
  /**
   * A member's message: to `onMessage` when the logic has one (resolves
   * when it ran; rejects with its error), else relayed to the others or
   * to `to`. Resolves false when `to` names no member.
   */
  message(connectionId: string, data: unknown, to: string | undefined): Promise<boolean>;
  /**
   * Drops the instance now (`onEmpty`) if it has neither members nor joins
   * in flight: for an instance made for joins that went away before
   * reaching it. Otherwise does nothing.
   */
  vacate(): void;
}

function viewOf(seat: RoomSeat): ShardMemberView {
  return { connectionId: seat.connectionId, userId: seat.userId, presence: seat.presence };
}

/** Creates an empty room instance. */
export function createRoomInstance(context: RoomInstanceContext): RoomInstance {
  const { logic, timers } = context;
  const members = new Map<string, RoomSeat>();
  let joining = 0;
  let state: unknown = null;
  let ticker: { handle: unknown; count: number; busy: boolean } | undefined;
  // Logic handlers run one after another, so a handler sees a stable room.
  let chain: Promise<unknown> = Promise.resolve();
  const serialize = <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task, task);
    chain = run.catch(() => undefined);
    return run;
  };

  const fromServer = (data: unknown): ShardServerFrame => ({
    type: "message",
    from: "server",
    data,
  });
  const handle: RoomHandle = {
    name: context.name,
    key: context.key,
    members: (): RoomMember[] => [...members.values()].map(viewOf),
    broadcast(data, options) {
      const frame = fromServer(data);
      for (const seat of members.values()) {
        if (seat.connectionId !== options?.except) seat.send(frame);
      }
    },
    send(connectionId, data) {
      members.get(connectionId)?.send(fromServer(data));
    },
    get state() {
      return state;
    },
    set state(value) {
      state = value;
    },
  };

  const others = (except: string, frame: ShardServerFrame): void => {
    for (const seat of members.values()) if (seat.connectionId !== except) seat.send(frame);
  };

  const startTicks = (): void => {
    const onTick = logic?.onTick;
    if (onTick === undefined || ticker !== undefined) return;
    const current = { handle: undefined as unknown, count: 0, busy: false };
    current.handle = timers.setInterval(() => {
      // A tick still running (or queued) is not stacked on: slow logic skips ticks.
      if (current.busy || ticker !== current) return;
      current.busy = true;
      current.count += 1;
      const tick = { count: current.count, now: context.now() };
      void serialize(() => onTick(handle, tick))
        .catch(context.onError)
        .finally(() => {
          current.busy = false;
        });
    }, context.tickMs);
    ticker = current;
  };

  const settle = (): void => {
    if (members.size > 0 || joining > 0) return;
    if (ticker !== undefined) timers.clearInterval(ticker.handle);
    ticker = undefined;
    state = null;
    context.onEmpty();
  };

  return {
    handle,
    get size() {
      return members.size;
    },
    async join(seat, stillOpen) {
      if (members.size + joining >= context.maxMembers) return { full: true };
      joining += 1;
      try {
        const onJoin = logic?.onJoin;
        if (onJoin !== undefined) await serialize(() => onJoin(handle, viewOf(seat), seat.auth));
      } catch (error) {
        joining -= 1;
        settle();
        return { error };
      }
      joining -= 1;
      if (!stillOpen()) {
        settle();
        return { joined: true };
      }
      members.set(seat.connectionId, seat);
      seat.send({
        type: "welcome",
        self: { connectionId: seat.connectionId, userId: seat.userId },
        room: { name: context.name, key: context.key },
        members: [...members.values()].map(viewOf),
      });
      others(seat.connectionId, { type: "join", member: viewOf(seat) });
      startTicks();
      return { joined: true };
    },
    leave(connectionId) {
      const seat = members.get(connectionId);
      if (seat === undefined) return;
      members.delete(connectionId);
      others(connectionId, { type: "leave", connectionId });
      const onLeave = logic?.onLeave;
      if (onLeave !== undefined) {
        void serialize(() => onLeave(handle, viewOf(seat), seat.auth)).catch(context.onError);
      }
      settle();
    },
    presence(connectionId, data) {
      const seat = members.get(connectionId);
      if (seat === undefined) return;
      seat.presence = data;
      others(connectionId, { type: "presence", connectionId, data });
    },
    vacate: settle,
    async message(connectionId, data, to) {
      const seat = members.get(connectionId);
      if (seat === undefined) return true;
      const onMessage = logic?.onMessage;
      if (onMessage !== undefined) {
        const message = { from: viewOf(seat), data, ...(to !== undefined && { to }) };
        await serialize(() => onMessage(handle, message, seat.auth));
        return true;
      }
      const frame: ShardServerFrame = { type: "message", from: connectionId, data };
      if (to === undefined) {
        others(connectionId, frame);
        return true;
      }
      const target = members.get(to);
      target?.send(frame);
      return target !== undefined;
    },
  };
}
