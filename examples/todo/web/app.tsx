import { useAuth } from "@svc/client/react";
import type { ReactNode } from "react";
import { SignIn } from "./sign-in.js";
import { Todos } from "./todos.js";

/** The page: the sign-in form, or the signed-in user's todos. */
export function App(): ReactNode {
  const { loading, signedIn } = useAuth();
  return (
    <main className="page">
      <h1>Todos</h1>
      {loading ? <p className="muted">Loading…</p> : signedIn ? <Todos /> : <SignIn />}
    </main>
  );
}
