import { useAuth } from "@svc/client/react";
import type { ReactNode } from "react";
import { Chat } from "./chat.js";
import { SignIn } from "./sign-in.js";

/** The page: the sign-in form, or the chat. */
export function App(): ReactNode {
  const { loading, signedIn } = useAuth();
  if (loading) return <p className="muted centered">Loading…</p>;
  if (!signedIn) {
    return (
      <main className="narrow">
        <h1>Chat</h1>
        <SignIn />
      </main>
    );
  }
  return <Chat />;
}
