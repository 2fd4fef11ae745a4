import { useMutation, useQuery, useSvcClient } from "@svc/client/react";
import { useEffect, useState } from "react";
import { formatCents, messageOf } from "./format.js";
import type { Api } from "./svc-api.js";

type Product = Api["entities"]["Product"] & { readonly id: string };

/** The catalogue: live for signed-in shoppers, one read for visitors. */
export function Products(props: { signedIn: boolean; onNotice(message: string): void }) {
  return props.signedIn ? <LiveProducts onNotice={props.onNotice} /> : <VisitorProducts />;
}

function LiveProducts(props: { onNotice(message: string): void }) {
  const { rows, loading, error } = useQuery("Product", { orderBy: "name", limit: 500 });
  return (
    <ProductList
      products={rows}
      loading={loading}
      error={error?.message ?? null}
      onNotice={props.onNotice}
      canBuy
    />
  );
}

// Live data needs a session; a visitor reads the list once over HTTP,
// which the Product read policy allows anyone.
function VisitorProducts() {
  const client = useSvcClient();
  const [products, setProducts] = useState<Product[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    client
      .entities("Product")
      .list({ order: "name", limit: 500 })
      .then(
        (page) => current && setProducts(page.rows as unknown as Product[]),
        (failure: unknown) => current && setError(messageOf(failure)),
      );
    return () => {
      current = false;
    };
  }, [client]);
  return (
    <ProductList
      products={products ?? []}
      loading={products === null && error === null}
      error={error}
      canBuy={false}
    />
  );
}

function ProductList(props: {
  products: readonly Product[];
  loading: boolean;
  error: string | null;
  canBuy: boolean;
  onNotice?(message: string): void;
}) {
  return (
    <section aria-labelledby="products-title">
      <h2 id="products-title">Products</h2>
      {props.error !== null && (
        <p role="alert" className="error">
          {props.error}
        </p>
      )}
      {props.loading ? (
        <p>Loading products…</p>
      ) : props.products.length === 0 ? (
        <p>Nothing for sale yet. Seed the catalogue with the admin token (see the README).</p>
      ) : (
        <ul className="products">
          {props.products.map((product) => (
            <ProductCard
              key={product.id}
              product={product}
              canBuy={props.canBuy}
              {...(props.onNotice !== undefined && { onNotice: props.onNotice })}
            />
          ))}
        </ul>
      )}
      {!props.canBuy && <p className="hint">Sign in to fill a cart.</p>}
    </section>
  );
}

function ProductCard(props: {
  product: Product;
  canBuy: boolean;
  onNotice?(message: string): void;
}) {
  const { product } = props;
  const [addToCart, { pending, error }] = useMutation("addToCart");
  const soldOut = product.stock <= 0;
  return (
    <li className="card product" aria-label={product.name}>
      <h3>{product.name}</h3>
      {product.description !== null && <p>{product.description}</p>}
      <p className="price">{formatCents(product.priceCents)}</p>
      <p className="stock">{soldOut ? "Sold out" : `${product.stock} in stock`}</p>
      {props.canBuy && (
        <button
          type="button"
          disabled={pending || soldOut}
          onClick={() =>
            void addToCart({ productId: product.id }).then(
              () => props.onNotice?.(`Added ${product.name} to your cart.`),
              () => undefined,
            )
          }
        >
          Add to cart
        </button>
      )}
      {error !== null && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
    </li>
  );
}
