import { backoffDelay, type Timers } from "./backoff.js";
import { SvcError } from "./errors.js";
import type { WebSocketConstructor, WebSocketLike } from "./live-socket.js";
import {
  classifyClose,
  encodeDataFrame,
  parseRoomFrame,
  type RoomMember,
  type RoomServerFrame,
  SHARD_PROTOCOL,
} from "./rooms-frames.js";
import type { TokenState } from "./token-state.js";

/**
 * What a room connection is doing: `connecting` (the first attempt, or
 * after an identity change), `open` (joined: members and messages flow),
 * `reconnecting` (dropped; retrying after a backoff), `refused` (the join
 * rule, the credential or the room logic said no; retried only when the
 * identity changes) and `closed` (by `close()`).
 */
export type RoomStatus = "connecting" | "open" | "reconnecting" | "refused" | "closed";

/** A room's state at one moment; a new object after every change (compare by reference). */
export interface RoomState<TPresence = unknown> {
  readonly status: RoomStatus;
  /** This connection while joined, with the presence it last set; null otherwise. */
  readonly self: RoomMember<TPresence> | null;
  /** Everyone in the room instance in join order, this connection included; empty unless `open`. */
  readonly members: readonly RoomMember<TPresence>[];
  /** The last failure (a refusal, `ROOM_FULL`, an `error` frame); cleared by the next join. */
  readonly error: SvcError | null;
}

/** A message received in a room. */
export interface RoomMessage<TMessage = unknown> {
  /** The sender's `connectionId`, or `"server"` when room logic sent it. */
  readonly from: string;
  /** The sender's user id; null for the admin token and for room logic. */
  readonly userId: string | null;
  readonly data: TMessage;
}

/** Options of `client.room`. */
export interface RoomOptions<TPresence = unknown, TMessage = unknown> {
  /** Presence to announce as soon as the room is joined (and again after every rejoin). */
  readonly presence?: TPresence;
  /** Receives every message (same as `room.onMessage`). */
  readonly onMessage?: (message: RoomMessage<TMessage>) => void;
  /** Receives every failure (same as `room.onError`). */
  readonly onError?: (error: SvcError) => void;
}

/** Options of `room.send`. */
export interface RoomSendOptions {
  /** A member's `connectionId`: send to that member only (`MEMBER_NOT_FOUND` when gone). */
  readonly to?: string;
}

/** One open connection to a room instance (`/shard/<kind>[/<key>]`). */
export interface Room<TPresence = unknown, TMessage = unknown> {
  readonly kind: string;
  /** The instance key; null for the kind's single instance. */
  readonly key: string | null;
  /** The state now (status, self, members, error). */
  readonly state: RoomState<TPresence>;
  readonly status: RoomStatus;
  readonly members: readonly RoomMember<TPresence>[];
  readonly self: RoomMember<TPresence> | null;
  /** Resolves on the first join; rejects when refused (or closed) before it. */
  readonly ready: Promise<RoomState<TPresence>>;
  /** Replaces this connection's presence and tells the others; kept and sent again after a rejoin. */
  setPresence(presence: TPresence): void;
  /**
   * Sends `data` to every other member (or to `options.to` only). Sent
   * while not joined, it waits for the join (at most 32 wait; the oldest
   * is dropped first). Throws `DATA_TOO_LARGE` over 32 KiB of JSON.
   */
  send(data: TMessage, options?: RoomSendOptions): void;
  /** Adds a message listener; returns the function that removes it. */
  onMessage(listener: (message: RoomMessage<TMessage>) => void): () => void;
  /** Adds a failure listener; returns the function that removes it. */
  onError(listener: (error: SvcError) => void): () => void;
  /** Calls `listener` with the new state after every change; returns the unsubscribe function. */
  subscribe(listener: (state: RoomState<TPresence>) => void): () => void;
  /** Leaves the room for good: the socket closes and nothing is retried. */
  close(): void;
}

/** What a room needs from the client it belongs to. */
export interface RoomContext {
  readonly baseURL: string;
  readonly tokens: TokenState;
  readonly WebSocket: WebSocketConstructor | undefined;
  readonly timers: Timers;
  readonly random: () => number;
}

const KIND = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const KEY = /^[A-Za-z0-9_-]{1,128}$/;
const OPEN = 1;
const NORMAL_CLOSURE = 1000;
/** Messages that may wait for a join, like the server's own early-frame bound. */
const MAX_WAITING_MESSAGES = 32;

function roomURL(base: string, kind: string, key: string | null): string {
  const url = new URL(`${base}/shard/${kind}${key === null ? "" : `/${key}`}`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

/** Calls a user's callback; one that throws must not break the connection. */
function call<T>(listener: (value: T) => void, value: T): void {
  try {
    listener(value);
  } catch (error) {
    console.error("svc client: a room listener threw:", error);
  }
}

/**
 * Connects to a room: joins, keeps the member list and presence up to
 * date, relays messages, rejoins after a drop with the client's
 * full-jitter backoff, and reconnects as the new caller on every identity
 * change. Throws `INVALID_ROOM` for a kind or key the server could never
 * serve.
 */
export function openRoom<TPresence, TMessage>(
  context: RoomContext,
  kind: string,
  key: string | null,
  options: RoomOptions<TPresence, TMessage> = {},
): Room<TPresence, TMessage> {
  if (!KIND.test(kind) || (key !== null && !KEY.test(key))) {
    throw new SvcError(
      "INVALID_ROOM",
      "A room kind is a letter then up to 63 letters, digits, _ or -; a key 1 to 128 of them.",
      { status: 0 },
    );
  }
  const { timers } = context;
  const url = roomURL(context.baseURL.replace(/\/+$/, ""), kind, key);
  const messageListeners = new Set<(message: RoomMessage<TMessage>) => void>();
  const errorListeners = new Set<(error: SvcError) => void>();
  const stateListeners = new Set<(state: RoomState<TPresence>) => void>();
  if (options.onMessage !== undefined) messageListeners.add(options.onMessage);
  if (options.onError !== undefined) errorListeners.add(options.onError);

  let state: RoomState<TPresence> = { status: "connecting", self: null, members: [], error: null };
  let presence: { value: TPresence } | null =
    options.presence === undefined ? null : { value: options.presence };
  const waiting: string[] = [];
  let socket: WebSocketLike | null = null;
  let timer: unknown;
  let attempt = 0;
  let dropped = false;
  let joined = false;
  // An error frame before the welcome explains the refusal that follows it.
  let refusal: SvcError | null = null;
  // Bumped whenever the current attempt is abandoned; late callbacks compare it.
  let generation = 0;

  let settleReady: ((value: RoomState<TPresence>) => void) | null = null;
  let failReady: ((error: SvcError) => void) | null = null;
  const ready = new Promise<RoomState<TPresence>>((resolve, reject) => {
    settleReady = resolve;
    failReady = reject;
  });
  // Awaiting `ready` is optional: never an unhandled rejection.
  ready.catch(() => undefined);
  const endReady = (outcome: { state: RoomState<TPresence> } | { error: SvcError }): void => {
    if ("state" in outcome) settleReady?.(outcome.state);
    else failReady?.(outcome.error);
    settleReady = failReady = null;
  };

  const update = (patch: Partial<RoomState<TPresence>>): void => {
    state = { ...state, ...patch };
    for (const listener of [...stateListeners]) call(listener, state);
  };
  const report = (error: SvcError): void => {
    for (const listener of [...errorListeners]) call(listener, error);
  };

  const detach = (): void => {
    generation += 1;
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
    const current = socket;
    socket = null;
    joined = false;
    refusal = null;
    if (current === null) return;
    current.onopen = current.onmessage = current.onclose = current.onerror = null;
    try {
      current.close(NORMAL_CLOSURE);
    } catch {
      // Closing a socket that never opened may throw in some environments.
    }
  };

  const transmit = (text: string): boolean => {
    if (socket === null || !joined || socket.readyState !== OPEN) return false;
    socket.send(text);
    return true;
  };

  const withPresence = (member: RoomMember): RoomMember<TPresence> =>
    member as RoomMember<TPresence>;

  const onWelcome = (frame: Extract<RoomServerFrame, { type: "welcome" }>): void => {
    joined = true;
    attempt = 0;
    dropped = false;
    refusal = null;
    const own = presence === null ? null : presence.value;
    const self: RoomMember<TPresence> = { ...frame.self, presence: own };
    const members = frame.members.map((member) =>
      member.connectionId === self.connectionId ? self : withPresence(member),
    );
    if (presence !== null) transmit(encodeDataFrame("presence", presence.value));
    for (const text of waiting.splice(0)) transmit(text);
    update({ status: "open", self, members, error: null });
    endReady({ state });
  };

  const handle = (frame: RoomServerFrame): void => {
    switch (frame.type) {
      case "welcome":
        onWelcome(frame);
        return;
      case "join":
        if (state.members.some((member) => member.connectionId === frame.member.connectionId)) {
          return;
        }
        update({ members: [...state.members, withPresence(frame.member)] });
        return;
      case "leave":
        update({
          members: state.members.filter((member) => member.connectionId !== frame.connectionId),
        });
        return;
      case "presence":
        update({
          members: state.members.map((member) =>
            member.connectionId === frame.connectionId
              ? { ...member, presence: frame.data as TPresence }
              : member,
          ),
        });
        return;
      case "message": {
        const sender = state.members.find((member) => member.connectionId === frame.from);
        const message: RoomMessage<TMessage> = {
          from: frame.from,
          userId: sender?.userId ?? null,
          data: frame.data as TMessage,
        };
        for (const listener of [...messageListeners]) call(listener, message);
        return;
      }
      case "error": {
        const error = new SvcError(frame.error.code, frame.error.message, { status: 0 });
        if (!joined) {
          refusal = error;
          return;
        }
        update({ error });
        report(error);
        return;
      }
      case "pong":
        return;
    }
  };

  const onClosed = (code: number, reason: string): void => {
    const explained = refusal;
    socket = null;
    joined = false;
    refusal = null;
    const { action, error } = classifyClose(code, reason, explained);
    if (action === "refused") {
      update({ status: "refused", self: null, members: [], error });
      if (error !== null) {
        report(error);
        endReady({ error });
      }
      return;
    }
    dropped = true;
    const delayMs = backoffDelay(attempt, { random: context.random });
    attempt += 1;
    update({ status: "reconnecting", self: null, members: [], error: error ?? state.error });
    if (error !== null) report(error);
    const current = generation;
    timer = timers.setTimeout(() => {
      timer = undefined;
      if (current === generation) connect();
    }, delayMs);
  };

  const open = (token: string | null): void => {
    const WebSocketImpl = context.WebSocket;
    if (WebSocketImpl === undefined) return;
    const protocols = token === null ? [SHARD_PROTOCOL] : [SHARD_PROTOCOL, `bearer.${token}`];
    let ws: WebSocketLike;
    try {
      ws = new WebSocketImpl(url, protocols);
    } catch {
      // A token the constructor refuses as a subprotocol: a failed attempt.
      onClosed(1006, "");
      return;
    }
    socket = ws;
    ws.onmessage = (event) => {
      if (typeof event.data !== "string") return;
      const frame = parseRoomFrame(event.data);
      if (frame !== null) handle(frame);
    };
    ws.onclose = (event) => onClosed(event.code, event.reason);
    // Errors are followed by a close event, which decides what happens next.
    ws.onerror = () => undefined;
  };

  function connect(): void {
    if (state.status === "closed") return;
    if (context.WebSocket === undefined) {
      const error = new SvcError(
        "WEBSOCKET_UNAVAILABLE",
        "Rooms need a WebSocket, and this platform has none (pass live.WebSocket).",
        { status: 0 },
      );
      update({ status: "refused", error });
      report(error);
      endReady({ error });
      return;
    }
    const status = dropped ? "reconnecting" : "connecting";
    if (state.status !== status) update({ status });
    const current = generation;
    context.tokens.get().then(
      (token) => {
        if (current === generation && state.status !== "closed") open(token);
      },
      () => {
        if (current === generation && state.status !== "closed") onClosed(1006, "");
      },
    );
  }

  // A new identity joins as itself: leave, then join again from scratch.
  const stopAuth = context.tokens.subscribe(() => {
    if (state.status === "closed") return;
    detach();
    attempt = 0;
    dropped = false;
    update({ self: null, members: [], error: null });
    connect();
  });

  connect();

  return {
    kind,
    key,
    ready,
    get state() {
      return state;
    },
    get status() {
      return state.status;
    },
    get members() {
      return state.members;
    },
    get self() {
      return state.self;
    },
    setPresence(value) {
      const text = encodeDataFrame("presence", value);
      presence = { value };
      if (state.self !== null) {
        const self = { ...state.self, presence: value };
        update({
          self,
          members: state.members.map((member) =>
            member.connectionId === self.connectionId ? self : member,
          ),
        });
      }
      transmit(text);
    },
    send(data, sendOptions = {}) {
      const text = encodeDataFrame("message", data, sendOptions.to);
      if (transmit(text) || state.status === "closed") return;
      waiting.push(text);
      if (waiting.length > MAX_WAITING_MESSAGES) waiting.shift();
    },
    onMessage(listener) {
      messageListeners.add(listener);
      return () => void messageListeners.delete(listener);
    },
    onError(listener) {
      errorListeners.add(listener);
      return () => void errorListeners.delete(listener);
    },
    subscribe(listener) {
      stateListeners.add(listener);
      return () => void stateListeners.delete(listener);
    },
    close() {
      if (state.status === "closed") return;
      stopAuth();
      detach();
      waiting.length = 0;
      update({ status: "closed", self: null, members: [] });
      endReady({
        error: new SvcError("ROOM_CLOSED", "The room was closed before it was joined.", {
          status: 0,
        }),
      });
    },
  };
}
