import { useSvcClient } from "@svc/client/react";
import { type FormEvent, useState } from "react";
import { attempt } from "./format.js";

/** Deletes the account, after the user ticks that they mean it. */
export function DeleteAccount() {
  const client = useSvcClient();
  const [sure, setSure] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const remove = (event: FormEvent) => {
    event.preventDefault();
    void attempt(
      async () => {
        await client.auth.deleteAccount();
      },
      setBusy,
      setError,
    );
  };
  return (
    <section className="card danger" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete account</h2>
      <form onSubmit={remove}>
        <p>
          This signs you out everywhere, revokes your API keys and removes your profile. You leave
          your organizations; one left without members is deleted with its projects.
        </p>
        <label className="check">
          <input
            type="checkbox"
            checked={sure}
            onChange={(event) => setSure(event.target.checked)}
          />{" "}
          I understand this cannot be undone
        </label>
        <button type="submit" className="destructive" disabled={!sure || busy}>
          Delete my account
        </button>
      </form>
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  );
}
