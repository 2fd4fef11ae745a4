import { useAuth, useQuery } from "@svc/client/react";
import { type ReactNode, useEffect, useMemo, useState } from "react";
import { ChannelList } from "./channel-list.js";
import { ChannelView } from "./channel-view.js";
import { DisplayNameForm } from "./display-name-form.js";

/** The channel in the address (`#general`), following the back and forward buttons. */
function useChannelName(): string {
  const [name, setName] = useState(() => decodeURIComponent(location.hash.slice(1)));
  useEffect(() => {
    const follow = () => setName(decodeURIComponent(location.hash.slice(1)));
    window.addEventListener("hashchange", follow);
    return () => window.removeEventListener("hashchange", follow);
  }, []);
  return name;
}

/** Signed in: a display name first, then channels, messages and who is online. */
export function Chat(): ReactNode {
  const { userId, signOut } = useAuth();
  // Every signed-in user reads every profile: names for messages and the online list.
  const profiles = useQuery("Profile", { limit: 1000 });
  const channels = useQuery("Channel", { orderBy: "name", limit: 1000 });
  const [renaming, setRenaming] = useState(false);
  const wanted = useChannelName();

  const names = useMemo(
    () => new Map(profiles.rows.map((profile) => [profile.userId, profile.displayName])),
    [profiles.rows],
  );
  const sorted = useMemo(
    () => [...channels.rows].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    [channels.rows],
  );
  const selected =
    sorted.find((channel) => channel.name === wanted) ??
    sorted.find((channel) => channel.name === "general") ??
    sorted[0];

  if (profiles.loading || channels.loading || userId === null) {
    return <p className="muted centered">Loading…</p>;
  }
  const myName = names.get(userId);
  if (myName === undefined || renaming) {
    return (
      <main className="narrow">
        <h1>Chat</h1>
        <DisplayNameForm
          current={myName ?? ""}
          onSaved={() => setRenaming(false)}
          {...(myName !== undefined && { onCancel: () => setRenaming(false) })}
        />
      </main>
    );
  }

  return (
    <div className="layout">
      <header className="topbar">
        <h1>Chat</h1>
        <span className="muted">
          Signed in as <strong>{myName}</strong>
        </span>
        <button type="button" className="secondary" onClick={() => setRenaming(true)}>
          Change name
        </button>
        <button type="button" className="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <ChannelList channels={sorted} selectedId={selected?.id ?? null} />
      {selected === undefined ? (
        <main className="channel empty">
          <p className="muted">No channels yet. Create the first one.</p>
        </main>
      ) : (
        <ChannelView key={selected.id} channel={selected} myName={myName} names={names} />
      )}
    </div>
  );
}
