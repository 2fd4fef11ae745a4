import { useMutation, useQuery } from "@svc/client/react";

/** The caller's conversations, newest first, live. */
export function Conversations(props: { openId: string | null; onOpen(id: string | null): void }) {
  const { rows, loading, error } = useQuery("Conversation", { orderBy: "-createdAt", limit: 200 });
  const [deleteConversation, deleting] = useMutation("deleteConversation");
  // Rows that arrive later are appended; keep the newest on top.
  const conversations = [...rows].sort((a, b) => b.createdAt.localeCompare(a.createdAt));

  return (
    <nav className="conversations" aria-label="Conversations">
      <button type="button" className="new" onClick={() => props.onOpen(null)}>
        New conversation
      </button>
      {(error ?? deleting.error) !== null && (
        <p role="alert" className="error">
          {(error ?? deleting.error)?.message}
        </p>
      )}
      {loading ? (
        <p className="muted">Loading…</p>
      ) : conversations.length === 0 ? (
        <p className="muted">No conversations yet.</p>
      ) : (
        <ul>
          {conversations.map((conversation) => (
            <li key={conversation.id} className={conversation.id === props.openId ? "open" : ""}>
              <button
                type="button"
                className="title"
                aria-current={conversation.id === props.openId ? "page" : undefined}
                onClick={() => props.onOpen(conversation.id)}
              >
                {conversation.title}
              </button>
              <button
                type="button"
                className="delete"
                aria-label={`Delete “${conversation.title}”`}
                disabled={deleting.pending}
                onClick={() =>
                  void deleteConversation({ id: conversation.id }).then(
                    () => conversation.id === props.openId && props.onOpen(null),
                    () => undefined,
                  )
                }
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}
