import { SvcError } from "@svc/client";
import { useMutation, useQuery } from "@svc/client/react";
import { type FormEvent, type KeyboardEvent, useEffect, useRef, useState } from "react";

/**
 * One conversation: its messages, live (the assistant's reply shows as soon
 * as the `ask` action stores it), and the box to write the next one.
 */
export function Thread(props: { conversationId: string | null; onStarted(id: string): void }) {
  const { conversationId } = props;
  const [ask, { pending, error }] = useMutation("ask");
  const [draft, setDraft] = useState("");
  // What was sent to start a new conversation, shown until the thread exists.
  const [opening, setOpening] = useState<string | null>(null);
  // A reply that lands after the user moved to another conversation must not pull them back.
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const send = (event?: FormEvent) => {
    event?.preventDefault();
    const content = draft.trim();
    if (content === "" || pending) return;
    setDraft("");
    if (conversationId === null) setOpening(content);
    void ask(conversationId === null ? { content } : { conversationId, content }).then(
      (asked) => {
        if (conversationId === null && mounted.current) props.onStarted(asked.conversationId);
      },
      (failure: unknown) => {
        if (!mounted.current) return;
        setOpening(null);
        // Nothing was stored: give the text back.
        if (
          failure instanceof SvcError &&
          (failure.status === 400 || failure.code === "MODEL_NOT_CONFIGURED")
        ) {
          setDraft(content);
        }
      },
    );
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey) send(event);
  };

  return (
    <main className="thread">
      {conversationId === null ? (
        <div className="messages" aria-live="polite">
          {opening === null ? (
            <p className="muted empty">Ask anything to start a conversation.</p>
          ) : (
            <Bubble author="user" content={opening} />
          )}
          {pending && <Thinking />}
        </div>
      ) : (
        <Messages conversationId={conversationId} pending={pending} />
      )}
      {error !== null && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
      <form className="composer" onSubmit={send}>
        <label htmlFor="message" className="visually-hidden">
          Message
        </label>
        <textarea
          id="message"
          rows={2}
          maxLength={4000}
          placeholder="Write a message (Enter sends, Shift+Enter for a new line)"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <button type="submit" disabled={pending || draft.trim() === ""}>
          Send
        </button>
      </form>
    </main>
  );
}

function Messages(props: { conversationId: string; pending: boolean }) {
  const { rows, loading, error } = useQuery("Message", {
    where: { conversationId: props.conversationId },
    orderBy: "createdAt",
    limit: 1000,
  });
  const messages = [...rows].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const end = useRef<HTMLDivElement>(null);
  const count = messages.length;
  // Scroll to the newest message, and to the thinking bubble when it comes.
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: "end" });
  }, [count, props.pending]);

  return (
    <div className="messages" aria-live="polite">
      {error !== null && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
      {loading && <p className="muted">Loading…</p>}
      {messages.map((message) => (
        <Bubble key={message.id} author={message.role} content={message.content} />
      ))}
      {props.pending && <Thinking />}
      <div ref={end} />
    </div>
  );
}

function Bubble(props: { author: "user" | "assistant"; content: string }) {
  return (
    <article className={`bubble ${props.author}`}>
      <h2 className="visually-hidden">{props.author === "user" ? "You" : "Assistant"}</h2>
      <p>{props.content}</p>
    </article>
  );
}

function Thinking() {
  return (
    <p className="bubble assistant thinking" role="status">
      Thinking…
    </p>
  );
}
