import { describe, expect, it } from "vitest";
import {
  asciiJSON,
  createReassembler,
  encodeBatch,
  MAX_NOTIFY_PAYLOAD,
  relayMessageSchema,
} from "./relay-wire.js";

// The codec between servers, without Postgres: batches in one payload or
// in parts under the payload limit, rebuilt per sender, bounded.

const counter = () => {
  let seq = 0;
  return () => {
    seq += 1;
    return seq;
  };
};

describe("asciiJSON", () => {
  it("escapes everything outside ASCII, so length is size, and parses back", () => {
    const value = { text: "é€😀\u007f\n", n: 1 };
    const text = asciiJSON(value);
    expect(text).toMatch(/^[\x20-\x7f]*$/);
    expect(Buffer.byteLength(text)).toBe(text.length);
    expect(JSON.parse(text)).toEqual(value);
    expect(asciiJSON({ plain: "ascii" })).toBe('{"plain":"ascii"}');
  });
});

describe("encodeBatch and createReassembler", () => {
  it("sends a small batch as one payload", () => {
    const payloads = encodeBatch(7, counter(), '[{"a":1}]');
    expect(payloads).toEqual(['7:1:m[{"a":1}]']);
    expect(createReassembler().accept(payloads[0] ?? "")).toEqual({
      from: 7,
      messages: [{ a: 1 }],
    });
  });

  it("splits a large batch into parts under the limit and rebuilds it", () => {
    const messages = [{ data: "x".repeat(20_000) }, { data: "é".repeat(3000) }];
    const payloads = encodeBatch(123, counter(), asciiJSON(messages));
    expect(payloads.length).toBeGreaterThan(3);
    for (const payload of payloads)
      expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(MAX_NOTIFY_PAYLOAD);
    const receiver = createReassembler();
    const results = payloads.map((payload) => receiver.accept(payload));
    expect(results.slice(0, -1).every((result) => "pending" in result)).toBe(true);
    expect(results.at(-1)).toEqual({ from: 123, messages });
  });

  it("keeps senders apart", () => {
    const big = asciiJSON([{ data: "y".repeat(10_000) }]);
    const one = encodeBatch(1, counter(), big);
    const two = encodeBatch(2, counter(), '["small"]');
    const receiver = createReassembler();
    expect(receiver.accept(one[0] ?? "")).toEqual({ pending: true });
    expect(receiver.accept(two[0] ?? "")).toEqual({ from: 2, messages: ["small"] });
    expect(receiver.accept(one[1] ?? "")).toEqual({
      from: 1,
      messages: [{ data: "y".repeat(10_000) }],
    });
  });

  it("drops a batch over the bound, and recovers with the next", () => {
    const seq = counter();
    const receiver = createReassembler(10_000);
    const results = encodeBatch(5, seq, asciiJSON(["z".repeat(30_000)])).map((payload) =>
      receiver.accept(payload),
    );
    expect(results.some((result) => "problem" in result)).toBe(true);
    expect(receiver.accept(encodeBatch(5, seq, "[1]")[0] ?? "")).toEqual({
      from: 5,
      messages: [1],
    });
  });

  it("drops what a lost part interrupted, and takes whole batches after it", () => {
    const seq = counter();
    const parts = encodeBatch(9, seq, asciiJSON(["w".repeat(20_000)]));
    const receiver = createReassembler();
    receiver.accept(parts[0] ?? "");
    // parts[1] is lost: the rest does not make a batch.
    const rest = parts.slice(2).map((payload) => receiver.accept(payload));
    expect(rest.at(-1)).toMatchObject({ problem: expect.stringContaining("not JSON") });
    expect(receiver.accept(encodeBatch(9, seq, "[2]")[0] ?? "")).toEqual({
      from: 9,
      messages: [2],
    });
  });

  it.each(["", "garbage", "1:x:m[]", "1:1:q[]"])("refuses the payload %j", (payload) => {
    expect(createReassembler().accept(payload)).toMatchObject({ problem: expect.any(String) });
  });

  it("refuses a batch that is not a list", () => {
    expect(createReassembler().accept('1:1:m{"t":"leave"}')).toMatchObject({
      problem: expect.stringContaining("not a list"),
    });
  });
});

describe("relayMessageSchema", () => {
  const r = { n: "chat", k: null };
  it.each([
    { t: "leave", r, c: "abc" },
    { t: "presence", r, c: "abc", d: null },
    { t: "message", r, c: "abc", d: { x: 1 }, to: "def" },
    { t: "deliver", r, to: ["abc"], f: { type: "pong" } },
    { t: "refused", r, c: "abc", why: { code: "NO", message: "No.", status: 403 } },
    { t: "moved", r },
  ])("accepts %j", (message) => {
    expect(relayMessageSchema.safeParse(message).success).toBe(true);
  });

  it.each([
    { t: "leave", r, c: "" },
    { t: "deliver", r, to: [], f: { type: "pong" } },
    { t: "deliver", r, to: ["abc"], f: "pong" },
    { t: "join", r, c: "abc", u: "u", a: { userId: "u" }, p: null },
    { t: "close", r, c: "abc", code: 1, reason: "" },
    { t: "unknown", r },
  ])("refuses %j", (message) => {
    expect(relayMessageSchema.safeParse(message).success).toBe(false);
  });
});
