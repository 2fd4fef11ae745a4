import { useMutation } from "@svc/client/react";
import { type FormEvent, useState } from "react";
import { formatDate } from "./format.js";
import type { Api } from "./svc-api.js";

type Me = Api["functions"]["me"]["result"];

/** The caller's place in line, or the form to take one. */
export function MyPlace(props: { me: Me }) {
  const { me } = props;
  const [joinWaitlist, { pending, error }] = useMutation("joinWaitlist");
  const [note, setNote] = useState("");

  const join = (event: FormEvent) => {
    event.preventDefault();
    void joinWaitlist(note.trim() === "" ? {} : { note }).catch(() => undefined);
  };

  if (me.entry !== null) {
    const entry = me.entry;
    return (
      <section className="card place" aria-labelledby="place-title">
        {entry.status === "invited" ? (
          <>
            <h2 id="place-title">You're in!</h2>
            <p>
              You were invited on {formatDate(entry.invitedAt ?? entry.createdAt)}. Watch{" "}
              {entry.email} for the details.
            </p>
          </>
        ) : (
          <>
            <h2 id="place-title">You're on the list</h2>
            <p className="number">
              Number <strong>{entry.position}</strong> in line
            </p>
            <p>
              Joined {formatDate(entry.createdAt)} as {entry.email}. We'll write when it's your
              turn.
            </p>
          </>
        )}
        {entry.note !== null && <p className="muted">Your note: “{entry.note}”</p>}
      </section>
    );
  }

  if (!me.emailVerified) {
    return (
      <section className="card place" aria-labelledby="place-title">
        <h2 id="place-title">Verify your email first</h2>
        <p>
          Only addresses proven by a code can join. Sign out and sign in again with a code sent to{" "}
          {me.email ?? "your address"}.
        </p>
      </section>
    );
  }

  return (
    <section className="card place" aria-labelledby="place-title">
      <h2 id="place-title">Take your place</h2>
      <form onSubmit={join}>
        <p>
          Signed in as <strong>{me.email}</strong>.
        </p>
        <label htmlFor="note">Anything we should know? (optional)</label>
        <textarea
          id="note"
          maxLength={280}
          rows={3}
          value={note}
          onChange={(event) => setNote(event.target.value)}
        />
        <button type="submit" disabled={pending}>
          Join the waitlist
        </button>
      </form>
      {error !== null && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
    </section>
  );
}
