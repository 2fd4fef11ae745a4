import { useAuth } from "@svc/client/react";
import { useState } from "react";
import { Cart } from "./cart.js";
import { Orders } from "./orders.js";
import { Products } from "./products.js";
import { SignIn } from "./sign-in.js";

/** The shop: products for everyone; cart, checkout and orders once signed in. */
export function App() {
  const { loading, signedIn, signOut } = useAuth();
  const [notice, setNotice] = useState<string | null>(null);

  return (
    <>
      <header className="top">
        <h1>Shop</h1>
        {signedIn && (
          <button type="button" className="link" onClick={() => void signOut()}>
            Sign out
          </button>
        )}
      </header>
      <main className="layout">
        <Products signedIn={signedIn} onNotice={setNotice} />
        <aside className="side">
          {notice !== null && (
            <p className="notice" role="status">
              {notice}
            </p>
          )}
          {loading ? (
            <p>Loading…</p>
          ) : signedIn ? (
            <>
              <Cart onNotice={setNotice} />
              <Orders />
            </>
          ) : (
            <SignIn />
          )}
        </aside>
      </main>
    </>
  );
}
