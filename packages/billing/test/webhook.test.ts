import { testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import {
  expectBillingError,
  signatureFor,
  subscriptionEvent,
  useBillingFixture,
  WEBHOOK_SECRET,
} from "./fixture.js";

// The webhook against the ledger: verified events are recorded once by id
// and the hook runs once for each; nothing unverified is recorded.

function pingEvent(id: string, created: number): string {
  return JSON.stringify({
    id,
    object: "event",
    type: "invoice.paid",
    created,
    data: { object: { id: "in_1", object: "invoice" } },
  });
}

describe.each(testDatabases())("webhook on $name", (database) => {
  const fixture = useBillingFixture(database);

  async function events(f: ReturnType<typeof fixture>) {
    return f.tables.selectFrom("svc_billing_events").selectAll().orderBy("id").execute();
  }

  it("records a verified event, runs the hook once, and answers received", async () => {
    const f = fixture();
    const payload = pingEvent("evt_1", f.seconds() - 5);
    await expect(f.deliver(payload)).resolves.toEqual({ received: true });
    expect(await events(f)).toEqual([
      {
        id: "evt_1",
        type: "invoice.paid",
        created: f.seconds() - 5,
        payload,
        received_at: f.clock,
        processed_at: f.clock,
        hook_error: null,
      },
    ]);
    expect(f.hookCalls).toEqual([{ event: JSON.parse(payload), replay: false }]);
  });

  it("acknowledges a redelivery without recording or processing it again", async () => {
    const f = fixture();
    const payload = pingEvent("evt_1", f.seconds());
    await f.deliver(payload);
    f.clock += 60_000;
    await expect(f.deliver(payload)).resolves.toEqual({ received: true });
    const rows = await events(f);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.received_at).toBe(f.clock - 60_000);
    expect(f.hookCalls).toHaveLength(1);
  });

  it("records racing deliveries of one event once, on one server or two", async () => {
    const f = fixture();
    const other = await f.secondServer();
    const payload = pingEvent("evt_race", f.seconds());
    const results = await Promise.all([
      f.deliver(payload),
      f.deliver(payload, other.billing),
      f.deliver(payload),
      f.deliver(payload, other.billing),
    ]);
    expect(results).toEqual(Array(4).fill({ received: true }));
    expect(await events(f)).toHaveLength(1);
    expect(f.hookCalls).toHaveLength(1);
  });

  it.each<[string, (payload: string, now: number) => [string, string | undefined]]>([
    ["a wrong secret", (p, now) => [p, signatureFor(p, { secret: "whsec_wrong", timestamp: now })]],
    [
      "a tampered body",
      (p, now) => [p.replace("in_1", "in_2"), signatureFor(p, { timestamp: now })],
    ],
    ["a stale timestamp", (p, now) => [p, signatureFor(p, { timestamp: now - 301 })]],
    ["a future timestamp", (p, now) => [p, signatureFor(p, { timestamp: now + 301 })]],
    ["a missing header", (p) => [p, undefined]],
    ["a garbled header", (p) => [p, "t=,v1=="]],
    [
      "a body that is not JSON",
      (_p, now) => ["not json", signatureFor("not json", { timestamp: now })],
    ],
    [
      "JSON that is not an event",
      (_p, now) => ['{"id":7}', signatureFor('{"id":7}', { timestamp: now })],
    ],
  ])("refuses %s with WEBHOOK_INVALID and records nothing", async (_label, make) => {
    const f = fixture();
    const [body, signature] = make(pingEvent("evt_1", f.seconds()), f.seconds());
    await expectBillingError(
      f.billing.handleWebhook(Buffer.from(body), signature),
      "WEBHOOK_INVALID",
    );
    expect(await events(f)).toEqual([]);
    expect(f.hookCalls).toEqual([]);
  });

  it("refuses a body that is not UTF-8 even when its signature holds", async () => {
    const f = fixture();
    const bytes = Buffer.from([0x7b, 0xff, 0x7d]);
    const { createHmac } = await import("node:crypto");
    const v1 = createHmac("sha256", WEBHOOK_SECRET)
      .update(`${f.seconds()}.`)
      .update(bytes)
      .digest("hex");
    await expectBillingError(
      f.billing.handleWebhook(bytes, `t=${f.seconds()},v1=${v1}`),
      "WEBHOOK_INVALID",
    );
  });

  it("accepts several v1 signatures when one is valid (secret rotation)", async () => {
    const f = fixture();
    const payload = pingEvent("evt_1", f.seconds());
    const old = signatureFor(payload, { secret: "whsec_previous", timestamp: f.seconds() });
    const current = signatureFor(payload, { timestamp: f.seconds() });
    const v1 = (header: string) => header.split(",v1=")[1];
    const header = `t=${f.seconds()},v1=${v1(old)},v1=${v1(current)},v0=deadbeef`;
    await expect(f.billing.handleWebhook(Buffer.from(payload), header)).resolves.toEqual({
      received: true,
    });
    expect(await events(f)).toHaveLength(1);
  });

  it("answers WEBHOOK_NOT_CONFIGURED without a secret and PAYMENT_NOT_CONFIGURED without a key", async () => {
    const f = fixture();
    const payload = pingEvent("evt_1", f.seconds());
    const signature = signatureFor(payload, { timestamp: f.seconds() });
    const noSecret = f.billingWith({ webhookSecret: undefined });
    expect(noSecret.webhooksEnabled).toBe(false);
    await expectBillingError(
      noSecret.handleWebhook(Buffer.from(payload), signature),
      "WEBHOOK_NOT_CONFIGURED",
    );
    const noKey = f.billingWith({ apiKey: undefined });
    await expectBillingError(
      noKey.handleWebhook(Buffer.from(payload), signature),
      "PAYMENT_NOT_CONFIGURED",
    );
    expect(await events(f)).toEqual([]);
  });

  it("records a failing hook on the row, logs it, still answers received, and replays it", async () => {
    const f = fixture();
    f.hookFailure = new Error("grant failed");
    const payload = pingEvent("evt_1", f.seconds());
    await expect(f.deliver(payload)).resolves.toEqual({ received: true });
    expect(await events(f)).toMatchObject([
      { id: "evt_1", processed_at: null, hook_error: "Error: grant failed" },
    ]);
    expect(f.logged.map((entry) => entry.error)).toEqual([f.hookFailure]);

    // A redelivery does not retry the hook; the admin replay does.
    await f.deliver(payload);
    expect(f.hookCalls).toHaveLength(1);
    await expect(f.billing.replayEvent("evt_1")).resolves.toEqual({
      id: "evt_1",
      type: "invoice.paid",
      processedAt: null,
      hookError: "Error: grant failed",
    });
    f.hookFailure = undefined;
    f.clock += 1000;
    await expect(f.billing.replayEvent("evt_1")).resolves.toEqual({
      id: "evt_1",
      type: "invoice.paid",
      processedAt: f.clock,
      hookError: null,
    });
    expect(await events(f)).toMatchObject([{ processed_at: f.clock, hook_error: null }]);
    expect(f.hookCalls.map((call) => [call.event.id, call.replay])).toEqual([
      ["evt_1", false],
      ["evt_1", true],
      ["evt_1", true],
    ]);
  });

  it("answers EVENT_NOT_FOUND when replaying an unknown event", async () => {
    const f = fixture();
    await expectBillingError(f.billing.replayEvent("evt_missing"), "EVENT_NOT_FOUND");
    await expectBillingError(f.billing.replayEvent("e".repeat(300)), "EVENT_NOT_FOUND");
  });

  it("marks events processed on receipt when there is no hook", async () => {
    const f = fixture();
    const billing = f.billingWith({ onEvent: undefined });
    await billing.handleWebhook(
      Buffer.from(pingEvent("evt_1", f.seconds())),
      signatureFor(pingEvent("evt_1", f.seconds()), { timestamp: f.seconds() }),
    );
    expect(await events(f)).toMatchObject([{ processed_at: f.clock, hook_error: null }]);
    await expect(billing.replayEvent("evt_1")).resolves.toMatchObject({ hookError: null });
  });

  it("runs the hook after the event and its entitlement change committed", async () => {
    const f = fixture();
    const seen: unknown[] = [];
    const billing = f.billingWith({
      onEvent: async (event) => {
        seen.push(await f.billing.subscriptionFor("cus_hooked"));
        seen.push((await events(f)).map((row) => row.id));
        seen.push(event.id);
      },
    });
    const payload = subscriptionEvent({
      id: "evt_sub",
      created: f.seconds(),
      customer: "cus_hooked",
      status: "active",
    });
    await billing.handleWebhook(
      Buffer.from(payload),
      signatureFor(payload, { timestamp: f.seconds() }),
    );
    expect(seen).toEqual([
      expect.objectContaining({ id: "sub_1", status: "active" }),
      ["evt_sub"],
      "evt_sub",
    ]);
  });
});
