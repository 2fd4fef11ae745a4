import { createHmac } from "node:crypto";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { verifyWebhookSignature } from "./signature.js";

// Signatures made by the official SDK's test helper must verify; anything
// else (another secret, other bytes, a timestamp out of the 300-second
// window on either side, a garbled header) must not.

const stripe = new Stripe("sk_test_signing_helper_only");
const SECRET = "whsec_unit_test_secret";
const NOW = 1_790_000_000;
const PAYLOAD = JSON.stringify({ id: "evt_1", type: "ping", created: NOW, data: { object: {} } });

function header(options: { payload?: string; secret?: string; timestamp?: number } = {}): string {
  return stripe.webhooks.generateTestHeaderString({
    payload: options.payload ?? PAYLOAD,
    secret: options.secret ?? SECRET,
    timestamp: options.timestamp ?? NOW,
  });
}

/** The `v1` value of a helper-made header. */
function v1Of(value: string): string {
  return (
    value
      .split(",")
      .find((part) => part.startsWith("v1="))
      ?.slice(3) ?? ""
  );
}

function verify(
  headerValue: string | undefined,
  payload: string | Uint8Array = PAYLOAD,
  nowSecs = NOW,
) {
  return verifyWebhookSignature({
    payload: typeof payload === "string" ? Buffer.from(payload) : payload,
    header: headerValue,
    secret: SECRET,
    nowSecs,
  });
}

describe("verifyWebhookSignature", () => {
  it("accepts the SDK's header for the exact bytes", () => {
    expect(verify(header())).toBe(true);
  });

  it("accepts timestamps 300 seconds old or ahead, and refuses 301", () => {
    expect(verify(header({ timestamp: NOW - 300 }))).toBe(true);
    expect(verify(header({ timestamp: NOW + 300 }))).toBe(true);
    expect(verify(header({ timestamp: NOW - 301 }))).toBe(false);
    expect(verify(header({ timestamp: NOW + 301 }))).toBe(false);
  });

  it.each<[string, string | undefined, string?]>([
    ["another secret", header({ secret: "whsec_other" })],
    ["a tampered body", header(), PAYLOAD.replace("evt_1", "evt_2")],
    ["one byte more", header(), `${PAYLOAD} `],
    ["a body signed under another timestamp", `t=${NOW + 1},v1=${v1Of(header())}`],
    ["no header", undefined],
    ["an empty header", ""],
    ["garbage", "definitely not a signature"],
    ["no timestamp", `v1=${v1Of(header())}`],
    ["two timestamps", `t=${NOW},t=${NOW},v1=${v1Of(header())}`],
    ["a non-numeric timestamp", `t=soon,v1=${v1Of(header())}`],
    ["only a v0 signature", `t=${NOW},v0=${v1Of(header())}`],
    ["a truncated signature", `t=${NOW},v1=${v1Of(header()).slice(0, 63)}`],
    ["a non-hex signature", `t=${NOW},v1=${"z".repeat(64)}`],
    ["an overlong header", `t=${NOW},v1=${v1Of(header())},${"x=1,".repeat(2000)}`],
  ])("refuses %s", (_label, headerValue, payload) => {
    expect(verify(headerValue, payload)).toBe(false);
  });

  it("accepts a header with several v1 signatures when one matches, ignoring v0 and unknown schemes", () => {
    const wrong = v1Of(header({ secret: "whsec_rotated_out" }));
    const right = v1Of(header());
    expect(verify(`t=${NOW},v1=${wrong},v0=${"0".repeat(64)},v9=x,v1=${right}`)).toBe(true);
    expect(verify(`t=${NOW}, v1=${right.toUpperCase()}`)).toBe(true);
    expect(verify(`t=${NOW},v1=${wrong},v1=${wrong}`)).toBe(false);
  });

  it("signs the raw bytes, not a re-encoding of them", () => {
    const bytes = Buffer.from('{"id":"evt_ü","note":"caf\u00e9"}\n', "utf8");
    const signature = createHmac("sha256", SECRET).update(`${NOW}.`).update(bytes).digest("hex");
    expect(verify(`t=${NOW},v1=${signature}`, bytes)).toBe(true);
    expect(
      verify(`t=${NOW},v1=${signature}`, Buffer.from(JSON.stringify(JSON.parse(bytes.toString())))),
    ).toBe(false);
  });
});
