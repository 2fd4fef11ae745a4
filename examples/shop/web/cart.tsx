import { useLiveQuery, useMutation } from "@svc/client/react";
import { formatCents } from "./format.js";

/** The caller's cart, live: quantities, removal, the total and checkout. */
export function Cart(props: { onNotice(message: string): void }) {
  const { value: cart, loading, error } = useLiveQuery("cart");
  const [updateCartItem, update] = useMutation("updateCartItem");
  const [removeFromCart, remove] = useMutation("removeFromCart");
  const [checkout, placing] = useMutation("checkout");
  const failure = error ?? update.error ?? remove.error ?? placing.error;
  const busy = update.pending || remove.pending || placing.pending;
  const ignore = () => undefined;

  return (
    <section className="card" aria-labelledby="cart-title">
      <h2 id="cart-title">Your cart</h2>
      {loading || cart === undefined ? (
        <p>Loading your cart…</p>
      ) : cart.lines.length === 0 ? (
        <p>Your cart is empty.</p>
      ) : (
        <>
          <ul className="lines">
            {cart.lines.map((line) => (
              <li key={line.id} className={line.available ? "" : "unavailable"}>
                <span className="name">{line.name}</span>
                <span className="quantity">
                  <button
                    type="button"
                    aria-label={`One ${line.name} less`}
                    disabled={busy}
                    onClick={() =>
                      void (
                        line.quantity > 1
                          ? updateCartItem({ id: line.id, quantity: line.quantity - 1 })
                          : removeFromCart({ id: line.id })
                      ).catch(ignore)
                    }
                  >
                    −
                  </button>
                  <output aria-label={`Quantity of ${line.name}`}>{line.quantity}</output>
                  <button
                    type="button"
                    aria-label={`One ${line.name} more`}
                    disabled={busy}
                    onClick={() =>
                      void updateCartItem({ id: line.id, quantity: line.quantity + 1 }).catch(
                        ignore,
                      )
                    }
                  >
                    +
                  </button>
                </span>
                <span className="amount">{formatCents(line.lineTotalCents)}</span>
                <button
                  type="button"
                  className="link"
                  disabled={busy}
                  onClick={() => void removeFromCart({ id: line.id }).catch(ignore)}
                >
                  Remove<span className="visually-hidden"> {line.name}</span>
                </button>
                {!line.available && <span className="warning">Not enough in stock</span>}
              </li>
            ))}
          </ul>
          <p className="total">
            {cart.itemCount} {cart.itemCount === 1 ? "item" : "items"}, total{" "}
            <strong>{formatCents(cart.totalCents)}</strong>
          </p>
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              void checkout().then(
                (order) =>
                  props.onNotice(
                    `Order placed: ${order.itemCount} ${order.itemCount === 1 ? "item" : "items"} for ${formatCents(order.totalCents)}.`,
                  ),
                ignore,
              )
            }
          >
            Check out
          </button>
        </>
      )}
      {failure !== null && (
        <p role="alert" className="error">
          {failure.message}
        </p>
      )}
    </section>
  );
}
