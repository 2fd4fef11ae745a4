import {
  MAX_SHARD_DATA_BYTES,
  readFrameObject,
  type ShardServerFrame,
  type ShardWelcomeFrame,
  WS_CLOSE_CODES,
} from "@svc/schema/live-frames";
import { SvcError } from "./errors.js";

// The shard transport's wire format is defined once, in
// @svc/schema/live-frames (shared with the server; see live-frames.ts here
// for why there). What stays here is the client's own: its view of members
// (with a typed presence), the reader that checks what arrives, and how a
// close is told to the app.

export { SHARD_PROTOCOL } from "@svc/schema/live-frames";

/** The largest `data` (presence or message) the server accepts, as JSON: 32 KiB. */
export const MAX_ROOM_DATA_BYTES = MAX_SHARD_DATA_BYTES;

/** A member of a room as the server shows it: one connection (one tab) of one user. */
export interface RoomMember<TPresence = unknown> {
  /** Per connection: one user in two tabs is two members. */
  readonly connectionId: string;
  /** Null for the admin token. */
  readonly userId: string | null;
  /** The member's last `setPresence` state; null until it sets one. */
  readonly presence: TPresence | null;
}

/**
 * `{type: "welcome"}`: the join succeeded; every member in join order, the
 * joiner last. The client does not read the frame's `room` (it knows it).
 */
export type WelcomeFrame = Omit<ShardWelcomeFrame, "room">;

/** Every frame of the shard transport this client understands. */
export type RoomServerFrame = Exclude<ShardServerFrame, ShardWelcomeFrame> | WelcomeFrame;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isUserId(value: unknown): value is string | null {
  return value === null || typeof value === "string";
}

function isMember(value: unknown): value is RoomMember {
  return (
    isRecord(value) &&
    typeof value.connectionId === "string" &&
    isUserId(value.userId) &&
    "presence" in value
  );
}

/** The frame `text` holds, or null for anything this client does not understand. */
export function parseRoomFrame(text: string): RoomServerFrame | null {
  const value = readFrameObject(text);
  if (value === null) return null;
  switch (value.type) {
    case "welcome": {
      const { self, members } = value;
      return isRecord(self) &&
        typeof self.connectionId === "string" &&
        isUserId(self.userId) &&
        Array.isArray(members) &&
        members.every(isMember)
        ? (value as unknown as WelcomeFrame)
        : null;
    }
    case "join":
      return isMember(value.member) ? { type: "join", member: value.member } : null;
    case "leave":
      return typeof value.connectionId === "string"
        ? { type: "leave", connectionId: value.connectionId }
        : null;
    case "presence":
      return typeof value.connectionId === "string" && "data" in value
        ? { type: "presence", connectionId: value.connectionId, data: value.data }
        : null;
    case "message":
      return typeof value.from === "string" && "data" in value
        ? { type: "message", from: value.from, data: value.data }
        : null;
    case "error":
      return isRecord(value.error) && typeof value.error.code === "string"
        ? {
            type: "error",
            error: {
              code: value.error.code,
              message:
                typeof value.error.message === "string" ? value.error.message : value.error.code,
            },
          }
        : null;
    case "pong":
      return { type: "pong" };
    default:
      return null;
  }
}

/**
 * The JSON text of a client frame carrying `data`; throws `DATA_TOO_LARGE`
 * for data the server would refuse anyway, so the mistake surfaces where
 * it was made. `undefined` is sent as null (a frame needs `data`).
 */
export function encodeDataFrame(
  type: "presence" | "message",
  data: unknown,
  to?: string | undefined,
): string {
  // JSON.stringify answers undefined for undefined (and functions): send null.
  const json = JSON.stringify(data) ?? "null";
  if (new TextEncoder().encode(json).length > MAX_ROOM_DATA_BYTES) {
    throw new SvcError(
      "DATA_TOO_LARGE",
      `Room presence and messages may hold at most ${MAX_ROOM_DATA_BYTES} bytes of JSON.`,
      { status: 0 },
    );
  }
  const target = to === undefined ? "" : `,"to":${JSON.stringify(to)}`;
  return `{"type":"${type}","data":${json}${target}}`;
}

/** Close codes of the shard transport the client tells apart. */
const { POLICY_VIOLATION, TRY_AGAIN_LATER } = WS_CLOSE_CODES;

/**
 * How a close the client did not ask for is handled: `refused` (a join
 * rule, a missing or bad credential, or room logic said no; retrying
 * cannot help until the identity changes) or `retry` (everything else:
 * network loss, a restart, a full room), with the error to report, if any.
 */
export function classifyClose(
  code: number,
  reason: string,
  lastError: SvcError | null,
): { readonly action: "refused" | "retry"; readonly error: SvcError | null } {
  if (code === POLICY_VIOLATION) {
    if (reason === "join denied") {
      return {
        action: "refused",
        error: new SvcError("JOIN_DENIED", "The room's join rule does not admit you.", {
          status: 0,
        }),
      };
    }
    if (reason === "authentication required" || reason === "invalid token" || reason === "") {
      return {
        action: "refused",
        error: new SvcError(
          "AUTH_REQUIRED",
          `The server refused the room connection${reason === "" ? "" : ` (${reason})`}; sign in again.`,
          { status: 0 },
        ),
      };
    }
    // Room logic's onJoin refused: its error frame (with the message) came first.
    return {
      action: "refused",
      error:
        lastError !== null && lastError.code === reason
          ? lastError
          : new SvcError(reason, `The room refused the join (${reason}).`, { status: 0 }),
    };
  }
  if (code === TRY_AGAIN_LATER && reason === "room is full") {
    return {
      action: "retry",
      error: new SvcError("ROOM_FULL", "The room already holds its most members.", { status: 0 }),
    };
  }
  return { action: "retry", error: null };
}
