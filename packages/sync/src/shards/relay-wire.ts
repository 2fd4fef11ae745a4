import { authContextSchema } from "@svc/schema";
import type { ShardServerFrame } from "@svc/schema/live-frames";
import { z } from "zod";

// What servers sharing rooms tell each other through Postgres NOTIFY, and
// how those messages fit Postgres' payload limit. Pure: no I/O here, so the
// codec is tested on its own (relay-wire.test.ts).

/**
 * The largest notification payload sent, in bytes. Postgres refuses 8000
 * and more; the margin leaves room for nothing else (payloads are ASCII,
 * so characters are bytes).
 */
export const MAX_NOTIFY_PAYLOAD = 7900;

/**
 * The largest batch of messages one server sends another in one go, as
 * JSON text (default 4 MiB). A batch longer than a payload travels as
 * consecutive parts; a receiver drops (and reports) a longer one.
 */
export const DEFAULT_MAX_RELAY_BATCH_BYTES = 4 * 1024 * 1024;

const text = z.string().max(256);
const connectionId = z.string().min(1).max(64);
/** A room instance: its kind and key. */
const roomRef = z.strictObject({ n: text, k: text.nullable() });

/**
 * A frame for members, as the home built it: another server of the same
 * deployment wrote it, so only its shape is checked (an object with a
 * `type`); it reaches members as it came.
 */
const serverFrame = z.custom<ShardServerFrame>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    typeof (value as { type?: unknown }).type === "string",
);

/**
 * Every message between servers, by `t`. From a member's server to the
 * room's home: `join` (also a rejoin after the home moved, with the
 * member's current presence), `leave`, `presence`, `message`. From the
 * home to a member's server: `deliver` (one frame for some of its
 * members; `nodes` gives, for a `welcome` or `join` frame, the server of
 * each member listed), `joined` / `refused` (a join's outcome), `close` (a
 * member to close), `moved` (the home gave the room up: find it again).
 */
export const relayMessageSchema = z.discriminatedUnion("t", [
  z.strictObject({
    t: z.literal("join"),
    r: roomRef,
    c: connectionId,
    u: z.string().min(1).max(256).nullable(),
    a: authContextSchema,
    p: z.unknown(),
  }),
  z.strictObject({ t: z.literal("leave"), r: roomRef, c: connectionId }),
  z.strictObject({ t: z.literal("presence"), r: roomRef, c: connectionId, d: z.unknown() }),
  z.strictObject({
    t: z.literal("message"),
    r: roomRef,
    c: connectionId,
    d: z.unknown(),
    to: connectionId.optional(),
  }),
  z.strictObject({
    t: z.literal("deliver"),
    r: roomRef,
    to: z.array(connectionId).min(1).max(100_000),
    f: serverFrame,
    nodes: z.array(z.number().int().nonnegative()).max(100_000).optional(),
  }),
  z.strictObject({ t: z.literal("joined"), r: roomRef, c: connectionId }),
  z.strictObject({
    t: z.literal("refused"),
    r: roomRef,
    c: connectionId,
    why: z.union([
      z.literal("full"),
      z.literal("unavailable"),
      z.literal("failed"),
      z.strictObject({ code: text, message: z.string().max(4096), status: z.number().int() }),
    ]),
  }),
  z.strictObject({
    t: z.literal("close"),
    r: roomRef,
    c: connectionId,
    code: z.number().int().min(1000).max(4999),
    reason: z.string().max(123),
  }),
  z.strictObject({ t: z.literal("moved"), r: roomRef }),
]);

/** A message between servers (see `relayMessageSchema`). */
export type RelayMessage = z.infer<typeof relayMessageSchema>;

/** JSON text with every non-ASCII character escaped, so its length is its size in bytes. */
export function asciiJSON(value: unknown): string {
  const json = JSON.stringify(value);
  // JSON.stringify escapes control characters already; what is left is the rest of Unicode.
  if (!/[\u0080-\uffff]/.test(json)) return json;
  return json.replace(
    /[\u0080-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * Payloads carrying one batch (`[message, ...]` as ASCII JSON) from node
 * `from`: `<from>:<seq>:m<batch>` when it fits, else parts
 * `<from>:<seq>:p<part>` ending with `<from>:<seq>:e<part>`. Postgres
 * delivers one session's notifications to a listener in the order sent,
 * so the receiver rebuilds the batch from consecutive parts. `seq` also
 * keeps payloads distinct: Postgres folds identical payloads of one
 * transaction into one.
 */
export function encodeBatch(from: number, nextSeq: () => number, batch: string): string[] {
  const header = (kind: string) => `${from}:${nextSeq()}:${kind}`;
  // The header is at most 10 + 1 + 16 + 2 characters.
  const room = MAX_NOTIFY_PAYLOAD - 32;
  if (batch.length <= room) return [`${header("m")}${batch}`];
  const payloads: string[] = [];
  for (let start = 0; start < batch.length; start += room) {
    const last = start + room >= batch.length;
    payloads.push(`${header(last ? "e" : "p")}${batch.slice(start, start + room)}`);
  }
  return payloads;
}

/** What a payload came to: a whole batch of a sender, nothing yet (a part), or a problem. */
export type Received =
  | { readonly from: number; readonly messages: readonly unknown[] }
  | { readonly pending: true }
  | { readonly problem: string };

/**
 * Rebuilds batches from payloads, per sender (each sender numbers its
 * payloads to each receiver 1, 2, 3, ...). Bounded: a batch longer than
 * `maxBatchBytes` is dropped, and a gap in a sender's numbers drops the
 * batch it was building.
 */
export function createReassembler(maxBatchBytes = DEFAULT_MAX_RELAY_BATCH_BYTES): {
  accept(payload: string): Received;
  /** Forgets senders not in `live` (they are gone), and what they were sending. */
  retain(live: ReadonlySet<number>): void;
} {
  const senders = new Map<number, { seq: number; parts: string[]; size: number }>();
  return {
    accept(payload) {
      const match = /^(\d{1,10}):(\d{1,16}):([mpe])/.exec(payload);
      if (match === null) return { problem: "a payload without a header" };
      const from = Number(match[1]);
      const seq = Number(match[2]);
      const kind = match[3];
      const body = payload.slice(match[0].length);
      let sender = senders.get(from);
      if (sender === undefined) {
        sender = { seq, parts: [], size: 0 };
        senders.set(from, sender);
      } else if (seq !== sender.seq + 1) {
        // A lost payload (never seen from a connected listener): what was
        // being rebuilt is incomplete. Parts after the gap end in a batch
        // that does not parse, reported then.
        sender.parts = [];
        sender.size = 0;
      }
      sender.seq = seq;
      if (kind === "m") {
        // Parts that never ended cannot happen with contiguous numbers; drop them.
        sender.parts = [];
        sender.size = 0;
        return parseBatch(from, body);
      }
      sender.size += body.length;
      if (sender.size > maxBatchBytes) {
        sender.parts = [];
        sender.size = 0;
        return { problem: `node ${from} sent a batch over ${maxBatchBytes} bytes` };
      }
      sender.parts.push(body);
      if (kind === "p") return { pending: true };
      const whole = sender.parts.join("");
      sender.parts = [];
      sender.size = 0;
      return parseBatch(from, whole);
    },
    retain(live) {
      for (const from of [...senders.keys()]) if (!live.has(from)) senders.delete(from);
    },
  };
}

function parseBatch(from: number, whole: string): Received {
  let messages: unknown;
  try {
    messages = JSON.parse(whole);
  } catch {
    return { problem: `node ${from} sent a batch that is not JSON` };
  }
  if (!Array.isArray(messages)) return { problem: `node ${from} sent a batch that is not a list` };
  return { from, messages };
}
