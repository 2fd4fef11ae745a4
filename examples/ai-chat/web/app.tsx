import { useAuth } from "@svc/client/react";
import { useState } from "react";
import { Conversations } from "./conversations.js";
import { SignIn } from "./sign-in.js";
import { Thread } from "./thread.js";

/** The chat: your conversations on the side, the open one in the middle. */
export function App() {
  const { loading, signedIn, signOut } = useAuth();
  return (
    <>
      <header className="top">
        <h1>AI chat</h1>
        {signedIn && (
          <button type="button" className="link" onClick={() => void signOut()}>
            Sign out
          </button>
        )}
      </header>
      {loading ? (
        <p className="page">Loading…</p>
      ) : signedIn ? (
        <Chat />
      ) : (
        <main className="page">
          <SignIn />
        </main>
      )}
    </>
  );
}

function Chat() {
  // null: a new conversation, started by the first message.
  const [openId, setOpenId] = useState<string | null>(null);
  return (
    <div className="chat">
      <Conversations openId={openId} onOpen={setOpenId} />
      {/* A new thread (key) per conversation, so a draft never leaks into another. */}
      <Thread key={openId ?? "new"} conversationId={openId} onStarted={setOpenId} />
    </div>
  );
}
