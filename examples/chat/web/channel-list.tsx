import { useMutation } from "@svc/client/react";
import { type FormEvent, type ReactNode, useState } from "react";
import { MAX_CHANNEL_NAME_LENGTH } from "../functions/_limits.js";
import { errorMessage } from "./error-message.js";

/** The channels (links to `#<name>`) and the form that creates one. */
export function ChannelList(props: {
  channels: readonly { id: string; name: string }[];
  selectedId: string | null;
}): ReactNode {
  const [name, setName] = useState("");
  const [createChannel, { pending, error }] = useMutation("createChannel");

  function submit(event: FormEvent<HTMLFormElement>): void {
    event.preventDefault();
    createChannel({ name }).then(
      (channel) => {
        setName("");
        location.hash = channel.name;
      },
      () => undefined,
    );
  }

  return (
    <aside className="sidebar">
      <nav aria-labelledby="channels-heading">
        <h3 id="channels-heading">Channels</h3>
        <ul>
          {props.channels.map((channel) => (
            <li key={channel.id}>
              <a
                href={`#${channel.name}`}
                aria-current={channel.id === props.selectedId ? "page" : undefined}
              >
                #{channel.name}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <form className="stack" onSubmit={submit} aria-label="Create a channel">
        <label>
          New channel
          <input
            required
            maxLength={MAX_CHANNEL_NAME_LENGTH}
            placeholder="release-notes"
            value={name}
            onChange={(event) => setName(event.target.value)}
            aria-describedby="channel-name-hint"
          />
        </label>
        <small id="channel-name-hint" className="muted">
          Letters, digits and single dashes.
        </small>
        {error !== null && (
          <p role="alert" className="error">
            {errorMessage(error)}
          </p>
        )}
        <button type="submit" disabled={pending}>
          Create
        </button>
      </form>
    </aside>
  );
}
