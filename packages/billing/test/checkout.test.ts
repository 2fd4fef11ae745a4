import { dialectFor } from "@svc/store";
import { testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import { customerIdempotencyKey } from "../src/index.js";
import {
  API_KEY,
  expectBillingError,
  PUBLIC_URL,
  sessionAuth,
  useBillingFixture,
} from "./fixture.js";

// A user's first checkout creates the processor customer from the User
// row and stores its id through the store; later checkouts reuse it; two
// first checkouts at once (in one server or in two) create one customer.

const PRICES = { priceIds: ["price_pro"] };

describe.each(testDatabases())("checkout on $name", (database) => {
  const fixture = useBillingFixture(database);

  it("creates the customer from the User row, stores it, and opens a session", async () => {
    const f = fixture();
    const user = await f.insertUser({ email: "ada@example.com" });
    const result = await f.billing.checkout(
      sessionAuth(user.id),
      { priceIds: ["price_pro", "price_seats"] },
      "http://ignored.example",
    );
    expect(result).toEqual({
      id: "cs_test_fake1",
      url: "https://checkout.stripe.test/c/pay/cs_test_fake1",
    });
    expect(f.fake.customers).toEqual([
      { id: "cus_fake1", email: "ada@example.com", userId: user.id },
    ]);
    expect((await f.user(user.id))?.paymentCustomerId).toBe("cus_fake1");

    const [customerCall] = f.fake.requestsTo("/v1/customers");
    expect(customerCall?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(customerCall?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(customerCall?.headers["idempotency-key"]).toBe(`svc-customer-${user.id}`);
    expect(customerIdempotencyKey(user.id)).toBe(`svc-customer-${user.id}`);

    const [sessionCall] = f.fake.requestsTo("/v1/checkout/sessions");
    expect(Object.fromEntries(sessionCall?.form ?? [])).toEqual({
      customer: "cus_fake1",
      mode: "subscription",
      "line_items[0][price]": "price_pro",
      "line_items[0][quantity]": "1",
      "line_items[1][price]": "price_seats",
      "line_items[1][quantity]": "1",
      success_url: `${PUBLIC_URL}/billing/success`,
      cancel_url: `${PUBLIC_URL}/billing/cancel`,
      client_reference_id: user.id,
    });
    expect(sessionCall?.headers["idempotency-key"]).toMatch(/^svc-checkout-[0-9a-f-]{36}$/);
  });

  it("reuses the stored customer on later checkouts", async () => {
    const f = fixture();
    const user = await f.insertUser({ email: "ada@example.com" });
    const auth = sessionAuth(user.id);
    await f.billing.checkout(auth, PRICES, PUBLIC_URL);
    const second = await f.billing.checkout(auth, { ...PRICES, mode: "payment" }, PUBLIC_URL);
    expect(second.id).toBe("cs_test_fake2");
    expect(f.fake.customers).toHaveLength(1);
    expect(f.fake.requestsTo("/v1/customers")).toHaveLength(1);
    const sessions = f.fake.requestsTo("/v1/checkout/sessions");
    expect(sessions.map((call) => call.form.get("customer"))).toEqual(["cus_fake1", "cus_fake1"]);
    expect(sessions[1]?.form.get("mode")).toBe("payment");
  });

  it("never takes a customer id from the caller", async () => {
    const f = fixture();
    const user = await f.insertUser({ email: "ada@example.com" });
    await f.billing.checkout(
      sessionAuth(user.id),
      { ...PRICES, customer: "cus_victim", customerId: "cus_victim", paymentCustomerId: "cus_x" },
      PUBLIC_URL,
    );
    const [sessionCall] = f.fake.requestsTo("/v1/checkout/sessions");
    expect(sessionCall?.form.get("customer")).toBe("cus_fake1");
    expect(sessionCall?.body).not.toContain("cus_victim");
    expect((await f.user(user.id))?.paymentCustomerId).toBe("cus_fake1");
  });

  it("creates one customer for concurrent first checkouts", async () => {
    const f = fixture();
    f.fake.customerDelayMs = 50;
    const user = await f.insertUser({ email: "ada@example.com" });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => f.billing.checkout(sessionAuth(user.id), PRICES, PUBLIC_URL)),
    );
    expect(new Set(results.map((result) => result.id)).size).toBe(5);
    expect(f.fake.customers).toHaveLength(1);
    // Serialised per user: the later callers found the stored id and never asked.
    expect(f.fake.requestsTo("/v1/customers")).toHaveLength(1);
    const customers = f.fake.requestsTo("/v1/checkout/sessions").map((c) => c.form.get("customer"));
    expect(customers).toEqual(Array(5).fill("cus_fake1"));
    expect((await f.user(user.id))?.paymentCustomerId).toBe("cus_fake1");
  });

  it("creates one customer for concurrent first checkouts on two servers", async () => {
    const f = fixture();
    f.fake.customerDelayMs = 50;
    const other = await f.secondServer();
    const user = await f.insertUser({ email: "ada@example.com" });
    const auth = sessionAuth(user.id);
    await Promise.all([
      f.billing.checkout(auth, PRICES, PUBLIC_URL),
      other.billing.checkout(auth, PRICES, PUBLIC_URL),
      f.billing.checkout(auth, PRICES, PUBLIC_URL),
      other.billing.checkout(auth, PRICES, PUBLIC_URL),
    ]);
    expect(f.fake.customers).toHaveLength(1);
    // Postgres serialises across servers with an advisory lock. On SQLite the
    // second instance has its own in-process lock, so each asks once, and the
    // fixed idempotency key makes the processor answer with the same customer.
    const asked = f.fake.requestsTo("/v1/customers");
    expect(asked.length).toBe(dialectFor(f.name).concurrentWriters ? 1 : 2);
    expect(new Set(asked.map((call) => call.headers["idempotency-key"]))).toEqual(
      new Set([`svc-customer-${user.id}`]),
    );
    const customers = f.fake.requestsTo("/v1/checkout/sessions").map((c) => c.form.get("customer"));
    expect(customers).toEqual(Array(4).fill("cus_fake1"));
    expect((await f.user(user.id))?.paymentCustomerId).toBe("cus_fake1");
  });

  it("keeps different users' first checkouts apart", async () => {
    const f = fixture();
    f.fake.customerDelayMs = 20;
    const ada = await f.insertUser({ email: "ada@example.com" });
    const bob = await f.insertUser({ email: "bob@example.com" });
    await Promise.all([
      f.billing.checkout(sessionAuth(ada.id), PRICES, PUBLIC_URL),
      f.billing.checkout(sessionAuth(bob.id), PRICES, PUBLIC_URL),
    ]);
    expect(f.fake.customers.map((customer) => customer.email).sort()).toEqual([
      "ada@example.com",
      "bob@example.com",
    ]);
    const adaCustomer = (await f.user(ada.id))?.paymentCustomerId;
    const bobCustomer = (await f.user(bob.id))?.paymentCustomerId;
    expect(adaCustomer).not.toBe(bobCustomer);
    expect(f.fake.customers.find((c) => c.id === adaCustomer)?.userId).toBe(ada.id);
  });

  it("creates a customer without an email for a user who has none", async () => {
    const f = fixture();
    const user = await f.insertUser({});
    await f.billing.checkout(sessionAuth(user.id), PRICES, PUBLIC_URL);
    const [customerCall] = f.fake.requestsTo("/v1/customers");
    expect(customerCall?.form.has("email")).toBe(false);
    expect(customerCall?.form.get("metadata[svc_user_id]")).toBe(user.id);
  });

  it("answers USER_NOT_FOUND for a session whose user has no row, creating nothing", async () => {
    const f = fixture();
    await expectBillingError(
      f.billing.checkout(sessionAuth("0".repeat(40)), PRICES, PUBLIC_URL),
      "USER_NOT_FOUND",
    );
    expect(f.fake.requests).toHaveLength(0);
  });

  it("writes the customer id through the store, raising a change event", async () => {
    const f = fixture();
    const user = await f.insertUser({ email: "ada@example.com" });
    const changes: { op: string; row: unknown }[] = [];
    f.store.onChange((events) => {
      for (const event of events) changes.push({ op: event.op, row: event.row });
    });
    await f.billing.checkout(sessionAuth(user.id), PRICES, PUBLIC_URL);
    expect(changes).toEqual([
      {
        op: "update",
        row: expect.objectContaining({ id: user.id, paymentCustomerId: "cus_fake1" }),
      },
    ]);
  });
});
