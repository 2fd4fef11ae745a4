import { testDatabases } from "@svc/tooling/databases";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  adminGet,
  adminList,
  call,
  createDatabase,
  request,
  type ShopServer,
  seedProducts,
  signIn,
  startShop,
} from "./shop-server.js";

// The shop against the real server on every database: products, carts,
// checkout and orders through the HTTP API, as the front end calls them.

interface CartView {
  lines: {
    id: string;
    productId: string;
    name: string;
    quantity: number;
    unitPriceCents: number;
    lineTotalCents: number;
    available: boolean;
  }[];
  totalCents: number;
  itemCount: number;
}

interface OrdersView {
  orders: {
    id: string;
    status: string;
    totalCents: number;
    itemCount: number;
    items: { productId: string; name: string; quantity: number; unitPriceCents: number }[];
  }[];
  nextCursor: string | null;
}

interface ErrorBody {
  error: { code: string; message: string };
}

describe.each(testDatabases())("the shop on $name", (database) => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let server: ShopServer;
  let products: Record<string, string>;
  let emails = 0;
  const newUser = () => signIn(server, `shopper-${++emails}@example.com`);
  const product = (name: string) => products[name] ?? "";
  const stockOf = async (name: string) => (await adminGet(server, "Product", product(name))).stock;

  beforeAll(async () => {
    db = await createDatabase(database);
    server = await startShop(db.target);
  });

  afterAll(async () => {
    await server?.[Symbol.asyncDispose]();
    await db?.[Symbol.asyncDispose]();
  });

  // Each test sells its own freshly seeded products.
  beforeAll(async () => {
    products = await seedProducts(server);
  });
  afterEach(async () => {
    products = await seedProducts(server);
    expect(server.internalErrors).toEqual([]);
  });

  it("shows active products to everyone, signed in or not, and hides withdrawn ones", async () => {
    const anonymous = await request<{ id: string; name: string }[]>(
      server,
      "GET",
      "/api/entities/Product?limit=1000",
    );
    expect(anonymous.status).toBe(200);
    const names = anonymous.body.map((row) => row.name);
    expect(names).toContain("Enamel mug");
    expect(names).not.toContain("Last season's apron");
    const hidden = await request(
      server,
      "GET",
      `/api/entities/Product/${product("Last season's apron")}`,
    );
    expect(hidden.status).toBe(404);
    const admin = await adminGet(server, "Product", product("Last season's apron"));
    expect(admin.active).toBe(false);
  });

  it("lets only the admin token write products", async () => {
    const token = await newUser();
    const insert = await request<ErrorBody>(server, "POST", "/api/entities/Product", {
      token,
      body: { name: "Free lunch", priceCents: 0, stock: 100, active: true },
    });
    expect(insert.status).toBe(403);
    expect(insert.body.error.code).toBe("POLICY_DENIED");
    const restock = await request<ErrorBody>(
      server,
      "PATCH",
      `/api/entities/Product/${product("Enamel mug")}`,
      { token, body: { stock: 1_000_000, priceCents: 1 } },
    );
    expect(restock.status).toBe(403);
    expect(restock.body.error.code).toBe("POLICY_DENIED");
    const remove = await request(
      server,
      "DELETE",
      `/api/entities/Product/${product("Enamel mug")}`,
      {
        token,
      },
    );
    expect(remove.status).toBe(403);
    const anonymous = await request(server, "POST", "/api/entities/Product", {
      body: { name: "x", priceCents: 1, stock: 1, active: true },
    });
    expect(anonymous.status).toBe(403);
    expect(await stockOf("Enamel mug")).toBe(25);

    const admin = await request(server, "PATCH", `/api/entities/Product/${product("Enamel mug")}`, {
      token: ADMIN_TOKEN,
      body: { stock: 30 },
    });
    expect(admin.status).toBe(200);
    expect(await stockOf("Enamel mug")).toBe(30);
  });

  it("keeps a cart with quantities, line totals and a total", async () => {
    const token = await newUser();
    expect(
      (await call(server, token, "addToCart", { productId: product("Enamel mug") })).status,
    ).toBe(200);
    await call(server, token, "addToCart", { productId: product("Enamel mug"), quantity: 2 });
    const towel = await call<{ id: string }>(server, token, "addToCart", {
      productId: product("Linen tea towel"),
      quantity: 4,
    });
    let cart = (await call<CartView>(server, token, "cart")).body;
    expect(cart.lines.map((line) => [line.name, line.quantity, line.lineTotalCents])).toEqual([
      ["Enamel mug", 3, 3600],
      ["Linen tea towel", 4, 3600],
    ]);
    expect(cart).toMatchObject({ totalCents: 7200, itemCount: 7 });

    expect(
      (await call(server, token, "updateCartItem", { id: towel.body.id, quantity: 1 })).status,
    ).toBe(200);
    cart = (await call<CartView>(server, token, "cart")).body;
    expect(cart).toMatchObject({ totalCents: 4500, itemCount: 4 });

    expect((await call(server, token, "removeFromCart", { id: towel.body.id })).status).toBe(200);
    cart = (await call<CartView>(server, token, "cart")).body;
    expect(cart.lines.map((line) => line.name)).toEqual(["Enamel mug"]);
  });

  it("refuses cart lines it cannot sell", async () => {
    const token = await newUser();
    const tooMany = await call<ErrorBody>(server, token, "addToCart", {
      productId: product("Walnut chopping board"),
      quantity: 4,
    });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.error.code).toBe("OUT_OF_STOCK");
    const withdrawn = await call<ErrorBody>(server, token, "addToCart", {
      productId: product("Last season's apron"),
    });
    expect(withdrawn.status).toBe(404);
    expect(withdrawn.body.error.code).toBe("PRODUCT_NOT_FOUND");
    const zero = await call<ErrorBody>(server, token, "addToCart", {
      productId: product("Enamel mug"),
      quantity: 0,
    });
    expect(zero.body.error.code).toBe("INVALID_ARGS");
    // The entity API cannot sneak a withdrawn product or a silly quantity in either.
    for (const data of [
      { productId: product("Last season's apron"), quantity: 1 },
      { productId: product("Enamel mug"), quantity: 500 },
    ]) {
      const direct = await request(server, "POST", "/api/entities/CartItem", { token, body: data });
      expect(direct.status, JSON.stringify(data)).toBe(403);
    }
    expect((await call<CartView>(server, token, "cart")).body.lines).toEqual([]);
  });

  it("checks out: takes stock, writes the order at today's prices and empties the cart", async () => {
    const token = await newUser();
    await call(server, token, "addToCart", { productId: product("Enamel mug"), quantity: 2 });
    await call(server, token, "addToCart", {
      productId: product("Walnut chopping board"),
      quantity: 3,
    });

    const placed = await call<{ orderId: string; totalCents: number; itemCount: number }>(
      server,
      token,
      "checkout",
    );
    expect(placed.status).toBe(200);
    expect(placed.body).toMatchObject({ totalCents: 2 * 1200 + 3 * 4500, itemCount: 5 });

    expect(await stockOf("Enamel mug")).toBe(23);
    expect(await stockOf("Walnut chopping board")).toBe(0);
    expect((await call<CartView>(server, token, "cart")).body.lines).toEqual([]);
    // The request row only carried the checkout; nothing of it stays.
    expect(await adminList(server, "CheckoutRequest")).toEqual([]);

    // A later price change does not touch the order.
    await request(server, "PATCH", `/api/entities/Product/${product("Enamel mug")}`, {
      token: ADMIN_TOKEN,
      body: { priceCents: 9999 },
    });
    const orders = (await call<OrdersView>(server, token, "myOrders")).body;
    expect(orders.orders).toHaveLength(1);
    expect(orders.orders[0]).toMatchObject({
      id: placed.body.orderId,
      status: "placed",
      totalCents: 15900,
      itemCount: 5,
    });
    expect(
      orders.orders[0]?.items.map((item) => [item.name, item.quantity, item.unitPriceCents]).sort(),
    ).toEqual([
      ["Enamel mug", 2, 1200],
      ["Walnut chopping board", 3, 4500],
    ]);
  });

  it("writes nothing when one line is out of stock", async () => {
    const token = await newUser();
    await call(server, token, "addToCart", { productId: product("Enamel mug"), quantity: 2 });
    await call(server, token, "addToCart", {
      productId: product("Walnut chopping board"),
      quantity: 3,
    });
    // Someone else buys one board first.
    const other = await newUser();
    await call(server, other, "addToCart", { productId: product("Walnut chopping board") });
    expect((await call(server, other, "checkout")).status).toBe(200);
    const cartBefore = (await call<CartView>(server, token, "cart")).body;
    expect(cartBefore.lines.find((line) => line.name === "Walnut chopping board")?.available).toBe(
      false,
    );

    const failed = await call<ErrorBody>(server, token, "checkout");
    expect(failed.status).toBe(409);
    expect(failed.body.error.code).toBe("OUT_OF_STOCK");
    expect(failed.body.error.message).toContain("Walnut chopping board");
    expect(failed.body.error.message).toContain(product("Walnut chopping board"));

    expect(await stockOf("Enamel mug")).toBe(25);
    expect(await stockOf("Walnut chopping board")).toBe(2);
    expect((await call<CartView>(server, token, "cart")).body).toEqual(cartBefore);
    expect((await call<OrdersView>(server, token, "myOrders")).body.orders).toEqual([]);
    expect(await adminList(server, "CheckoutRequest")).toEqual([]);
  });

  it("refuses an empty cart and a withdrawn product, writing nothing", async () => {
    const token = await newUser();
    const empty = await call<ErrorBody>(server, token, "checkout");
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe("CART_EMPTY");

    await call(server, token, "addToCart", { productId: product("Linen tea towel") });
    await request(server, "PATCH", `/api/entities/Product/${product("Linen tea towel")}`, {
      token: ADMIN_TOKEN,
      body: { active: false },
    });
    const withdrawn = await call<ErrorBody>(server, token, "checkout");
    expect(withdrawn.status).toBe(409);
    expect(withdrawn.body.error.code).toBe("PRODUCT_UNAVAILABLE");
    expect(await stockOf("Linen tea towel")).toBe(40);
    expect((await call<OrdersView>(server, token, "myOrders")).body.orders).toEqual([]);
    expect((await call<CartView>(server, token, "cart")).body.lines).toHaveLength(1);
  });

  it("sells the last unit once when two buyers check out at the same moment", async () => {
    const [ada, bob] = await Promise.all([newUser(), newUser()]);
    await request(server, "PATCH", `/api/entities/Product/${product("Enamel mug")}`, {
      token: ADMIN_TOKEN,
      body: { stock: 1 },
    });
    for (const token of [ada, bob]) {
      expect(
        (await call(server, token, "addToCart", { productId: product("Enamel mug") })).status,
      ).toBe(200);
    }
    const results = await Promise.all(
      [ada, bob].map((token) => call<ErrorBody>(server, token, "checkout")),
    );
    expect(results.map((result) => result.status).sort()).toEqual([200, 409]);
    expect(results.find((result) => result.status === 409)?.body.error.code).toBe("OUT_OF_STOCK");
    expect(await stockOf("Enamel mug")).toBe(0);
  });

  it("keeps each user's cart and orders to themselves", async () => {
    const ada = await newUser();
    const eve = await newUser();
    const line = await call<{ id: string }>(server, ada, "addToCart", {
      productId: product("Enamel mug"),
    });
    await call(server, ada, "addToCart", { productId: product("Linen tea towel") });
    const order = await call<{ orderId: string }>(server, ada, "checkout");
    const kept = await call<{ id: string }>(server, ada, "addToCart", {
      productId: product("Enamel mug"),
    });
    expect(line.status).toBe(200);

    expect((await call<CartView>(server, eve, "cart")).body.lines).toEqual([]);
    expect((await call<OrdersView>(server, eve, "myOrders")).body.orders).toEqual([]);
    for (const path of [
      `/api/entities/CartItem/${kept.body.id}`,
      `/api/entities/Order/${order.body.orderId}`,
    ]) {
      expect((await request(server, "GET", path, { token: eve })).status, path).toBe(404);
    }
    expect(
      (await request<unknown[]>(server, "GET", "/api/entities/OrderItem", { token: eve })).body,
    ).toEqual([]);

    const change = await call<ErrorBody>(server, eve, "updateCartItem", {
      id: kept.body.id,
      quantity: 9,
    });
    expect(change.body.error.code).toBe("CART_ITEM_NOT_FOUND");
    const remove = await call<ErrorBody>(server, eve, "removeFromCart", { id: kept.body.id });
    expect(remove.body.error.code).toBe("CART_ITEM_NOT_FOUND");
    expect(
      (
        await request(server, "PATCH", `/api/entities/CartItem/${kept.body.id}`, {
          token: eve,
          body: { quantity: 9 },
        })
      ).status,
    ).toBe(404);
    const planted = await request<ErrorBody>(server, "POST", "/api/entities/CartItem", {
      token: eve,
      body: {
        productId: product("Enamel mug"),
        quantity: 1,
        ownerId: (await adminGet(server, "Order", order.body.orderId)).ownerId,
      },
    });
    expect(planted.body.error.code).toBe("OWNER_MISMATCH");

    const adaCart = (await call<CartView>(server, ada, "cart")).body;
    expect(adaCart.lines.map((row) => [row.name, row.quantity])).toEqual([["Enamel mug", 1]]);
  });

  it("lets nobody but the checkout write orders", async () => {
    const token = await newUser();
    const forged = await request<ErrorBody>(server, "POST", "/api/entities/Order", {
      token,
      body: { status: "placed", totalCents: 1, itemCount: 1 },
    });
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe("POLICY_DENIED");
    // Deleting one's own checkout request by hand is a checkout too, done the honest way.
    await call(server, token, "addToCart", { productId: product("Linen tea towel"), quantity: 2 });
    const filed = await request<{ id: string }>(server, "POST", "/api/entities/CheckoutRequest", {
      token,
      body: {},
    });
    expect(filed.status).toBe(201);
    expect(
      (await request(server, "DELETE", `/api/entities/CheckoutRequest/${filed.body.id}`, { token }))
        .status,
    ).toBe(200);
    const orders = (await call<OrdersView>(server, token, "myOrders")).body.orders;
    expect(orders.map((order) => [order.id, order.totalCents])).toEqual([[filed.body.id, 1800]]);
    expect(await stockOf("Linen tea towel")).toBe(38);
  });

  it("keeps guests and anonymous callers out of carts", async () => {
    const guest = (await request<{ token: string }>(server, "POST", "/api/auth/guest")).body.token;
    const asGuest = await call<ErrorBody>(server, guest, "addToCart", {
      productId: product("Enamel mug"),
    });
    expect(asGuest.status).toBe(403);
    expect(asGuest.body.error.code).toBe("GUEST_NOT_ALLOWED");
    const anonymous = await request<ErrorBody>(server, "POST", "/api/fn/cart", { body: {} });
    expect(anonymous.status).toBe(401);
  });

  it("holds at most 50 products in one cart", async () => {
    const batch = {
      operations: Array.from({ length: 51 }, (_, index) => ({
        op: "insert",
        entity: "Product",
        data: { name: `Bulk ${index}`, priceCents: 100, stock: 5, active: true },
      })),
    };
    const seeded = await request<{ ids: string[] }>(server, "POST", "/api/batch", {
      token: ADMIN_TOKEN,
      body: batch,
    });
    const ids = seeded.body.ids;
    const token = await newUser();
    for (const productId of ids.slice(0, 50)) {
      expect((await call(server, token, "addToCart", { productId })).status).toBe(200);
    }
    const full = await call<ErrorBody>(server, token, "addToCart", { productId: ids[50] });
    expect(full.status).toBe(400);
    expect(full.body.error.code).toBe("CART_FULL");
    // More of a product already in the cart still fits.
    expect((await call(server, token, "addToCart", { productId: ids[0] })).status).toBe(200);
    // A line added past the cap by hand is still shown, since checkout would buy it.
    await request(server, "POST", "/api/entities/CartItem", {
      token,
      body: { productId: ids[50], quantity: 1 },
    });
    const cart = (await call<CartView>(server, token, "cart")).body;
    expect(cart.lines).toHaveLength(51);
    expect(cart).toMatchObject({ itemCount: 52, totalCents: 5200 });
  });

  it("empties the cart of a deleted account and keeps its orders", async () => {
    const email = `leaving-${++emails}@example.com`;
    const token = await signIn(server, email);
    await call(server, token, "addToCart", { productId: product("Enamel mug") });
    const order = await call<{ orderId: string }>(server, token, "checkout");
    await call(server, token, "addToCart", { productId: product("Linen tea towel"), quantity: 2 });
    const stray = await request<{ id: string }>(server, "POST", "/api/entities/CheckoutRequest", {
      token,
      body: {},
    });
    const me = await request<{ user_id: string }>(server, "GET", "/api/auth/me", { token });
    const userId = me.body.user_id;

    const deleted = await request(server, "DELETE", "/api/auth/account", { token });
    expect(deleted.status).toBe(200);
    expect((await adminList(server, "CartItem")).filter((row) => row.ownerId === userId)).toEqual(
      [],
    );
    expect(
      (await adminList(server, "CheckoutRequest")).filter((row) => row.id === stray.body.id),
    ).toEqual([]);
    // Deleting the stray request bought nothing: one order, and the towels are still in stock.
    const orders = (await adminList(server, "Order")).filter((row) => row.ownerId === userId);
    expect(orders.map((row) => row.id)).toEqual([order.body.orderId]);
    expect(await stockOf("Linen tea towel")).toBe(40);
  });
});
