import { useLiveQuery, useMutation, usePresence } from "@svc/client/react";
import { type FormEvent, type ReactNode, useEffect, useMemo, useRef, useState } from "react";
import { MAX_MESSAGE_LENGTH } from "../functions/_limits.js";
import { errorMessage } from "./error-message.js";
import { formatTime, messagesOf } from "./messages.js";

/** How many of the newest messages the page shows. */
const PAGE_SIZE = 50;

/** What each member of a `channel` room announces. */
interface Presence {
  readonly name: string;
}

/** One channel: its live messages, who is here now, and the composer. */
export function ChannelView(props: {
  channel: { id: string; name: string };
  myName: string;
  names: ReadonlyMap<string, string>;
}): ReactNode {
  const { channel, myName, names } = props;
  // Re-sent by the server whenever a message of this page changes or a new one arrives.
  const page = useLiveQuery("listMessages", { channelId: channel.id, limit: PAGE_SIZE });
  const messages = useMemo(() => messagesOf(page.value?.rows ?? []), [page.value]);

  const log = useRef<HTMLDivElement>(null);
  const newest = messages.at(-1)?.id;
  useEffect(() => {
    if (newest !== undefined && log.current !== null) {
      log.current.scrollTop = log.current.scrollHeight;
    }
  }, [newest]);

  return (
    <main className="channel">
      <h2>#{channel.name}</h2>
      <div className="channel-body">
        <div className="log" ref={log} role="log" aria-label="Messages">
          {page.loading ? (
            <p className="muted">Loading…</p>
          ) : messages.length === 0 ? (
            <p className="muted">No messages yet. Say hello!</p>
          ) : (
            messages.map((message) => (
              <article key={message.id} className="message">
                <header>
                  <strong>{names.get(message.authorId) ?? "Someone"}</strong>{" "}
                  <time dateTime={message.createdAt}>{formatTime(message.createdAt)}</time>
                </header>
                <p>{message.text}</p>
              </article>
            ))
          )}
          {page.error !== null && (
            <p role="alert" className="error">
              {errorMessage(page.error)}
            </p>
          )}
        </div>
        <Online channelId={channel.id} myName={myName} />
      </div>
      <Composer channelId={channel.id} channelName={channel.name} />
    </main>
  );
}

/** Who has this channel open, from the `channel` room's presence (one entry per user). */
function Online(props: { channelId: string; myName: string }): ReactNode {
  const { members, self, status, error, setPresence } = usePresence<Presence>(
    "channel",
    props.channelId,
  );
  useEffect(() => setPresence({ name: props.myName }), [props.myName, setPresence]);

  // One user in two tabs is two members: list each user once.
  const people = new Map<string, { name: string; isMe: boolean }>();
  for (const member of members) {
    const name = member.presence?.name;
    const key = member.userId ?? member.connectionId;
    if (name === undefined && people.has(key)) continue;
    people.set(key, { name: name ?? "…", isMe: self !== null && member.userId === self.userId });
  }
  const sorted = [...people].sort(([, a], [, b]) => a.name.localeCompare(b.name));

  return (
    <aside className="online">
      <h3 id="online-heading">Online</h3>
      {status === "open" ? (
        <ul aria-labelledby="online-heading">
          {sorted.map(([key, person]) => (
            <li key={key}>
              <span className="dot" aria-hidden="true" />
              {person.name}
              {person.isMe && <span className="muted"> (you)</span>}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">
          {status === "refused" ? "Could not join." : status === "closed" ? "Left." : "Connecting…"}
        </p>
      )}
      {error !== null && status !== "open" && (
        <p role="alert" className="error">
          {errorMessage(error)}
        </p>
      )}
    </aside>
  );
}

function Composer(props: { channelId: string; channelName: string }): ReactNode {
  const [text, setText] = useState("");
  const [sendMessage, { pending, error }] = useMutation("sendMessage");

  function submit(event: FormEvent<HTMLFormElement>): void {
    event.preventDefault();
    if (text.trim() === "") return;
    sendMessage({ channelId: props.channelId, text }).then(
      () => setText(""),
      () => undefined,
    );
  }

  return (
    <form className="composer" onSubmit={submit} aria-label="Send a message">
      <label className="grow">
        <span className="sr-only">Message</span>
        <input
          required
          maxLength={MAX_MESSAGE_LENGTH}
          placeholder={`Message #${props.channelName}`}
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
      </label>
      <button type="submit" disabled={pending}>
        Send
      </button>
      {error !== null && (
        <p role="alert" className="error">
          {errorMessage(error)}
        </p>
      )}
    </form>
  );
}
