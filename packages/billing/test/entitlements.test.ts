import { adminAuth } from "@svc/store";
import { testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import { PUBLIC_URL, sessionAuth, subscriptionEvent, useBillingFixture } from "./fixture.js";

// Entitlements follow the subscription events: created → past_due →
// canceled, with a late, older event never undoing a newer state.

const DAY = 86_400;

/** The entitlements of a user with one active subscription and nothing else. */
function oneActiveSubscription(id: string, priceIds: string[], currentPeriodEnd: number) {
  return { active: true, subscriptions: [{ id, status: "active", priceIds, currentPeriodEnd }] };
}

describe.each(testDatabases())("entitlements on $name", (database) => {
  const fixture = useBillingFixture(database);

  /** A user who checked out once, so the processor customer is on the User row. */
  async function customerUser(f: ReturnType<typeof fixture>) {
    const user = await f.insertUser({ email: "ada@example.com" });
    await f.billing.checkout(sessionAuth(user.id), { priceIds: ["price_pro"] }, PUBLIC_URL);
    const customer = (await f.user(user.id))?.paymentCustomerId as string;
    return { userId: user.id, customer };
  }

  it("follows a subscription through created, past_due and canceled", async () => {
    const f = fixture();
    const { userId, customer } = await customerUser(f);
    expect(await f.billing.entitlementsFor(userId)).toEqual({ active: false, subscriptions: [] });

    const t0 = f.seconds();
    await f.deliver(
      subscriptionEvent({
        id: "evt_created",
        type: "customer.subscription.created",
        created: t0,
        customer,
        status: "active",
        priceIds: ["price_pro", "price_seats"],
        periodEnd: t0 + 30 * DAY,
      }),
    );
    expect(await f.billing.entitlementsFor(userId)).toEqual(
      oneActiveSubscription("sub_1", ["price_pro", "price_seats"], t0 + 30 * DAY),
    );
    const row = await f.tables
      .selectFrom("svc_billing_subscriptions")
      .selectAll()
      .executeTakeFirst();
    expect(row).toMatchObject({
      customer_id: customer,
      user_id: userId,
      event_id: "evt_created",
      event_created: t0,
    });

    f.clock += 31 * DAY * 1000;
    await f.deliver(
      subscriptionEvent({ id: "evt_past_due", created: f.seconds(), customer, status: "past_due" }),
    );
    const pastDue = await f.billing.entitlementsFor(userId);
    expect(pastDue.active).toBe(false);
    expect(pastDue.subscriptions.map((s) => s.status)).toEqual(["past_due"]);

    f.clock += DAY * 1000;
    await f.deliver(
      subscriptionEvent({
        id: "evt_deleted",
        type: "customer.subscription.deleted",
        created: f.seconds(),
        customer,
        status: "active",
      }),
    );
    const canceled = await f.billing.entitlementsFor(userId);
    expect(canceled.active).toBe(false);
    expect(canceled.subscriptions.map((s) => s.status)).toEqual(["canceled"]);
  });

  it("entitlementIds lists the entitling price ids, cached, and dropped by this server's webhook", async () => {
    const f = fixture();
    const { userId, customer } = await customerUser(f);
    expect(await f.billing.entitlementIds(userId)).toEqual([]);
    await f.deliver(
      subscriptionEvent({
        id: "evt_a",
        created: f.seconds(),
        customer,
        status: "active",
        priceIds: ["price_seats", "price_pro", "price_pro"],
      }),
    );
    // The webhook emptied the cache: the new state shows at once.
    expect(await f.billing.entitlementIds(userId)).toEqual(["price_pro", "price_seats"]);
    // A change written behind this server's back (another server) shows after the TTL.
    await f.tables.updateTable("svc_billing_subscriptions").set({ status: "canceled" }).execute();
    expect(await f.billing.entitlementIds(userId)).toEqual(["price_pro", "price_seats"]);
    f.clock += 10_001;
    expect(await f.billing.entitlementIds(userId)).toEqual([]);
  });

  it("tells onEntitlementsChanged whose entitlements changed; forgetEntitlements drops one user", async () => {
    const f = fixture();
    const told: string[] = [];
    const billing = f.billingWith({
      onEntitlementsChanged: async (userId) => {
        told.push(userId);
        if (told.length === 2) throw new Error("journal down");
      },
    });
    const { userId, customer } = await customerUser(f);
    const event = (id: string, status: string, created: number) =>
      subscriptionEvent({ id, created, customer, status, priceIds: ["price_pro"] });
    await f.deliver(event("evt_a", "active", f.seconds()), billing);
    expect(told).toEqual([userId]);
    // A failed announcement is logged; the event is still recorded.
    await expect(f.deliver(event("evt_b", "active", f.seconds() + 1), billing)).resolves.toEqual({
      received: true,
    });
    expect(f.logged).toEqual([
      {
        message: expect.stringContaining(userId),
        error: expect.objectContaining({ message: "journal down" }),
      },
    ]);
    // The replayed delivery of a recorded event changes nothing and tells no one.
    await f.deliver(event("evt_a", "active", f.seconds()), billing);
    expect(told).toHaveLength(2);
    // Another server's cache keeps its copy until told to forget it.
    const other = f.billingWith({});
    expect(await other.entitlementIds(userId)).toEqual(["price_pro"]);
    await f.tables.updateTable("svc_billing_subscriptions").set({ status: "canceled" }).execute();
    expect(await other.entitlementIds(userId)).toEqual(["price_pro"]);
    other.forgetEntitlements(userId);
    expect(await other.entitlementIds(userId)).toEqual([]);
  });

  it("entitlementCacheStats counts hits, misses and the webhook's and another server's invalidations", async () => {
    const f = fixture();
    const { userId, customer } = await customerUser(f);
    const start = f.billing.entitlementCacheStats();
    await f.billing.entitlementIds(userId);
    await f.billing.entitlementIds(userId);
    await f.deliver(
      subscriptionEvent({ id: "evt_s", created: f.seconds(), customer, status: "active" }),
    );
    await f.billing.entitlementIds(userId);
    f.billing.forgetEntitlements(userId);
    const now = f.billing.entitlementCacheStats();
    expect({
      hits: now.hits - start.hits,
      misses: now.misses - start.misses,
      invalidations: now.invalidations - start.invalidations,
      size: now.size,
    }).toEqual({ hits: 1, misses: 2, invalidations: 2, size: 0 });
  });

  it("reset empties the ledger, the subscriptions and the cache", async () => {
    const f = fixture();
    const { userId, customer } = await customerUser(f);
    await f.deliver(
      subscriptionEvent({ id: "evt_r", created: f.seconds(), customer, status: "active" }),
    );
    expect(await f.billing.entitlementIds(userId)).toEqual(["price_pro"]);
    await f.billing.reset();
    expect(await f.billing.entitlementIds(userId)).toEqual([]);
    expect(await f.tables.selectFrom("svc_billing_events").selectAll().execute()).toEqual([]);
  });

  it("a user who writes another's customer id on their own User row gains nothing", async () => {
    const f = fixture();
    const { customer } = await customerUser(f);
    await f.deliver(
      subscriptionEvent({ id: "evt_victim", created: f.seconds(), customer, status: "active" }),
    );
    const mallory = await f.insertUser({ email: "mallory@example.com" });
    // An app that lets users edit their own User row lets this through.
    await f.store.transaction(adminAuth, (tx) =>
      tx.update("User", mallory.id, { paymentCustomerId: customer }),
    );
    expect(await f.billing.entitlementsFor(mallory.id)).toEqual({
      active: false,
      subscriptions: [],
    });
    expect(await f.billing.entitlementIds(mallory.id)).toEqual([]);
    // Her checkout gets a customer of her own, not the victim's saved card.
    await f.billing.checkout(sessionAuth(mallory.id), { priceIds: ["price_pro"] }, PUBLIC_URL);
    const sessions = f.fake.requests.filter((req) => req.path === "/v1/checkout/sessions");
    expect(new URLSearchParams(sessions.at(-1)?.body).get("customer")).not.toBe(customer);
  });

  it("never lets an older event overwrite a newer state", async () => {
    const f = fixture();
    const { userId, customer } = await customerUser(f);
    const t0 = f.seconds();
    await f.deliver(
      subscriptionEvent({ id: "evt_new", created: t0 + 100, customer, status: "canceled" }),
    );
    // Delivered later, created earlier: recorded in the ledger, but the state stays.
    await f.deliver(subscriptionEvent({ id: "evt_old", created: t0, customer, status: "active" }));
    expect(await f.billing.entitlementsFor(userId)).toMatchObject({
      active: false,
      subscriptions: [{ status: "canceled" }],
    });
    const ids = await f.tables
      .selectFrom("svc_billing_events")
      .select("id")
      .orderBy("id")
      .execute();
    expect(ids.map((row) => row.id)).toEqual(["evt_new", "evt_old"]);
    // An event created in the same second as the stored one applies (arrival order).
    await f.deliver(
      subscriptionEvent({ id: "evt_same", created: t0 + 100, customer, status: "active" }),
    );
    expect((await f.billing.entitlementsFor(userId)).active).toBe(true);
  });

  it("counts trialing as active, and past_due only when configured", async () => {
    const f = fixture();
    const { userId, customer } = await customerUser(f);
    await f.deliver(
      subscriptionEvent({ id: "evt_1", created: f.seconds(), customer, status: "trialing" }),
    );
    expect((await f.billing.entitlementsFor(userId)).active).toBe(true);
    await f.deliver(
      subscriptionEvent({ id: "evt_2", created: f.seconds() + 1, customer, status: "past_due" }),
    );
    expect((await f.billing.entitlementsFor(userId)).active).toBe(false);
    const lenient = f.billingWith({ activeStatuses: ["active", "trialing", "past_due"] });
    expect((await lenient.entitlementsFor(userId)).active).toBe(true);
  });

  it.each(["incomplete", "incomplete_expired", "unpaid", "paused", "canceled"])(
    "does not count %s as active",
    async (status) => {
      const f = fixture();
      const { userId, customer } = await customerUser(f);
      await f.deliver(subscriptionEvent({ id: "evt_1", created: f.seconds(), customer, status }));
      expect(await f.billing.entitlementsFor(userId)).toMatchObject({
        active: false,
        subscriptions: [{ status }],
      });
    },
  );

  it("keeps several subscriptions, entitling ones first", async () => {
    const f = fixture();
    const { userId, customer } = await customerUser(f);
    const t = f.seconds();
    await f.deliver(
      subscriptionEvent({
        id: "evt_a",
        subscription: "sub_a",
        created: t,
        customer,
        status: "canceled",
      }),
    );
    await f.deliver(
      subscriptionEvent({
        id: "evt_b",
        subscription: "sub_b",
        created: t - 50,
        customer,
        status: "active",
        priceIds: ["price_team"],
      }),
    );
    const entitlements = await f.billing.entitlementsFor(userId);
    expect(entitlements.active).toBe(true);
    expect(entitlements.subscriptions.map((s) => [s.id, s.status])).toEqual([
      ["sub_b", "active"],
      ["sub_a", "canceled"],
    ]);
    expect(await f.billing.subscriptionFor(customer)).toMatchObject({
      id: "sub_b",
      priceIds: ["price_team"],
    });
  });

  it("keeps events for a customer no user has, and finds them by customer", async () => {
    const f = fixture();
    const { userId } = await customerUser(f);
    await f.deliver(
      subscriptionEvent({
        id: "evt_1",
        created: f.seconds(),
        customer: "cus_elsewhere",
        status: "active",
      }),
    );
    const row = await f.tables
      .selectFrom("svc_billing_subscriptions")
      .selectAll()
      .executeTakeFirst();
    expect(row).toMatchObject({ customer_id: "cus_elsewhere", user_id: null });
    expect(await f.billing.subscriptionFor("cus_elsewhere")).toMatchObject({
      id: "sub_1",
      status: "active",
    });
    expect(await f.billing.subscriptionFor("cus_nobody")).toBeNull();
    expect(await f.billing.entitlementsFor(userId)).toEqual({ active: false, subscriptions: [] });
    expect(await f.billing.entitlementsFor("f".repeat(40))).toEqual({
      active: false,
      subscriptions: [],
    });
  });

  it("reads the period end from the items on API versions that moved it there", async () => {
    const f = fixture();
    const { userId, customer } = await customerUser(f);
    const t = f.seconds();
    const payload = JSON.stringify({
      id: "evt_basil",
      object: "event",
      type: "customer.subscription.created",
      created: t,
      data: {
        object: {
          id: "sub_basil",
          object: "subscription",
          customer: { id: customer, object: "customer" },
          status: "active",
          items: {
            data: [
              { price: "price_a", current_period_end: t + 10 },
              { plan: { id: "plan_legacy" }, current_period_end: t + 20 },
            ],
          },
        },
      },
    });
    await f.deliver(payload);
    expect(await f.billing.entitlementsFor(userId)).toEqual(
      oneActiveSubscription("sub_basil", ["price_a", "plan_legacy"], t + 20),
    );
  });

  it("changes no entitlement for other events or malformed subscription objects", async () => {
    const f = fixture();
    const { userId, customer } = await customerUser(f);
    const t = f.seconds();
    await f.deliver(
      JSON.stringify({
        id: "evt_cs",
        type: "checkout.session.completed",
        created: t,
        data: { object: { object: "checkout.session", customer } },
      }),
    );
    await f.deliver(
      JSON.stringify({
        id: "evt_bad",
        type: "customer.subscription.updated",
        created: t,
        data: { object: { object: "subscription", id: "sub_x" } },
      }),
    );
    expect(await f.billing.entitlementsFor(userId)).toEqual({ active: false, subscriptions: [] });
    expect(await f.tables.selectFrom("svc_billing_events").select("id").execute()).toHaveLength(2);
  });
});
