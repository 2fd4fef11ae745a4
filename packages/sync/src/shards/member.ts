import { randomBytes } from "node:crypto";
import { type AuthContext, exceedsDepth, isWireError } from "@svc/schema";
import {
  MAX_SHARD_DATA_BYTES,
  MAX_SHARD_DATA_DEPTH,
  type ShardErrorFrame,
  type ShardServerFrame,
} from "@svc/schema/live-frames";
import type { WebSocket } from "ws";
import type { FanoutPeer } from "../fanout/peers.js";
import { boundedSocketSend, onJsonFrames, socketPeer } from "../fanout/socket-peer.js";
import { WS_CLOSE_CODES } from "../ws-frames.js";
import {
  type ShardClientFrame,
  type ShardErrorCode,
  shardClientFrameSchema,
  shardErrorCodes,
} from "./frames.js";
import type { JoinOutcome, RoomSeat } from "./room.js";
import type { RoomPort } from "./rooms.js";

/** Frames a client may send before its `welcome`; they are handled once it joined. */
const MAX_EARLY_FRAMES = 32;

/** What a member's socket needs from its hub. */
export interface MemberContext {
  /** Bytes that may wait in the socket's outgoing buffer before it is closed with 1013. */
  readonly maxQueue: number;
  readonly onError: (error: unknown) => void;
}

/** One socket in one room instance, a peer of the hub's fan-out. */
export type MemberSocket = FanoutPeer;

/**
 * The `error` frame a member gets for a failure of room logic: a
 * client-safe (wire) error as it is, anything else as `INTERNAL_ERROR`
 * and reported to `onError` (as are wire errors of status 500 and up).
 */
export function logicErrorFrame(
  error: unknown,
  onError: (error: unknown) => void,
): ShardErrorFrame {
  if (isWireError(error)) {
    if (error.status >= 500) onError(error);
    return { type: "error", error: { code: error.code, message: error.message } };
  }
  onError(error);
  return shardErrorFrame("INTERNAL_ERROR");
}

/** The `error` frame of one of the transport's own codes. */
export function shardErrorFrame(code: ShardErrorCode): ShardErrorFrame {
  return { type: "error", error: { code, message: shardErrorCodes[code].message } };
}

/**
 * Ends a seat whose join did not succeed: a full room 1013; a refusal by
 * `onJoin` an `error` frame, then 1008 with the error's code (1011 for a
 * 5xx or an unexpected error); an unreachable room 1013.
 */
export function closeRefused(
  seat: Pick<RoomSeat, "send" | "close">,
  outcome: Exclude<JoinOutcome, { joined: true }>,
  onError: (error: unknown) => void,
): void {
  if ("full" in outcome) {
    seat.close(WS_CLOSE_CODES.TRY_AGAIN_LATER, "room is full");
    return;
  }
  if ("unavailable" in outcome) {
    seat.close(WS_CLOSE_CODES.TRY_AGAIN_LATER, "room unavailable; reconnect");
    return;
  }
  const { error } = outcome;
  seat.send(logicErrorFrame(error, onError));
  const refused = isWireError(error) && error.status < 500;
  if (refused) seat.close(WS_CLOSE_CODES.POLICY_VIOLATION, error.code.slice(0, 120));
  else seat.close(WS_CLOSE_CODES.INTERNAL_ERROR, "join failed");
}

function dataProblem(data: unknown): ShardErrorCode | null {
  if (data === undefined) return "INVALID_FRAME";
  if (exceedsDepth(data, MAX_SHARD_DATA_DEPTH)) return "DATA_TOO_LARGE";
  return Buffer.byteLength(JSON.stringify(data)) > MAX_SHARD_DATA_BYTES ? "DATA_TOO_LARGE" : null;
}

/**
 * Joins an authenticated, admitted socket to its room instance and serves
 * its frames. Frames sent before the `welcome` wait (up to 32) and run
 * once it joined; a refused join closes the socket (see `closeRefused`).
 */
export function openMember(
  socket: WebSocket,
  auth: AuthContext,
  room: RoomPort,
  context: MemberContext,
): MemberSocket {
  const connectionId = randomBytes(9).toString("base64url");
  let closing = false;
  let joined = false;
  const early: ShardClientFrame[] = [];

  const close = (code: number, reason: string): void => {
    if (closing) return;
    closing = true;
    socket.close(code, reason);
  };

  const sendText = boundedSocketSend(socket, context.maxQueue, () =>
    close(WS_CLOSE_CODES.TRY_AGAIN_LATER, "too far behind; reconnect"),
  );
  const send = (frame: ShardServerFrame): void => {
    if (closing || socket.readyState !== socket.OPEN) return;
    sendText(JSON.stringify(frame));
  };

  const sendShardError = (code: ShardErrorCode): void => send(shardErrorFrame(code));
  const reportLogicError = (error: unknown): void => send(logicErrorFrame(error, context.onError));

  const handle = (frame: ShardClientFrame): void => {
    if (frame.type === "ping") {
      send({ type: "pong" });
      return;
    }
    const problem = dataProblem(frame.data);
    if (problem !== null) {
      sendShardError(problem);
      return;
    }
    if (frame.type === "presence") {
      room.presence(connectionId, frame.data);
      return;
    }
    room.message(connectionId, frame.data, frame.to).then((delivered) => {
      if (!delivered) sendShardError("MEMBER_NOT_FOUND");
    }, reportLogicError);
  };

  onJsonFrames(socket, {
    closing: () => closing,
    close,
    onFrame(value) {
      const parsed = shardClientFrameSchema.safeParse(value);
      if (!parsed.success) {
        sendShardError("INVALID_FRAME");
        return;
      }
      if (joined) handle(parsed.data);
      else if (early.length < MAX_EARLY_FRAMES) early.push(parsed.data);
      else close(WS_CLOSE_CODES.TRY_AGAIN_LATER, "too many frames before welcome");
    },
  });

  const member = socketPeer(socket);
  socket.on("close", () => {
    closing = true;
    // Unknown ids are ignored: this also covers a close between the join and `joined`.
    room.leave(connectionId);
  });

  const seat: RoomSeat = {
    connectionId,
    userId: auth.userId,
    auth,
    presence: null,
    send,
    close,
  };
  const stillOpen = (): boolean => !closing && socket.readyState === socket.OPEN;
  void room.join(seat, stillOpen).then((outcome) => {
    if (!("joined" in outcome)) {
      closeRefused(seat, outcome, context.onError);
      return;
    }
    if (!stillOpen()) return;
    joined = true;
    for (const frame of early.splice(0)) handle(frame);
  });
  return member;
}
