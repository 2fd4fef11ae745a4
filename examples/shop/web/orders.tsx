import { useLiveQuery } from "@svc/client/react";
import { formatCents } from "./format.js";

const dates = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" });

/** The caller's latest orders, live, with what was bought at what price. */
export function Orders() {
  const { value, loading, error } = useLiveQuery("myOrders", { limit: 10 });
  return (
    <section className="card" aria-labelledby="orders-title">
      <h2 id="orders-title">Your orders</h2>
      {error !== null && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
      {loading || value === undefined ? (
        <p>Loading your orders…</p>
      ) : value.orders.length === 0 ? (
        <p>No orders yet.</p>
      ) : (
        <ol className="orders">
          {value.orders.map((order) => (
            <li key={order.id}>
              <p>
                <strong>{formatCents(order.totalCents)}</strong> ·{" "}
                {dates.format(new Date(order.createdAt))} ·{" "}
                <span className="status">{order.status}</span>
              </p>
              <ul>
                {order.items.map((item) => (
                  <li key={item.productId}>
                    {item.quantity} × {item.name} at {formatCents(item.unitPriceCents)}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
