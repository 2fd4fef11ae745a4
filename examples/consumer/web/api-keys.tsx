import type { ApiKeyRecord, NewApiKey } from "@svc/client";
import { useSvcClient } from "@svc/client/react";
import { type FormEvent, useCallback, useEffect, useState } from "react";
import { attempt, formatUnixDate } from "./format.js";

const DAY_SECONDS = 86_400;

/**
 * API keys for scripts: each acts as the user (with no organization
 * selected), is shown in full once at creation, and can be revoked.
 */
export function ApiKeys() {
  const client = useSvcClient();
  const [keys, setKeys] = useState<readonly ApiKeyRecord[] | null>(null);
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [name, setName] = useState("");
  const [days, setDays] = useState("0");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const reload = useCallback(
    () => attempt(async () => setKeys(await client.apiKeys.list()), setBusy, setError),
    [client],
  );
  useEffect(() => {
    void reload();
  }, [reload]);

  const create = (event: FormEvent) => {
    event.preventDefault();
    void attempt(
      async () => {
        const lifetime = Number(days);
        const key = await client.apiKeys.create({
          name,
          ...(lifetime > 0 && {
            expiresAt: Math.floor(Date.now() / 1000) + lifetime * DAY_SECONDS,
          }),
        });
        setCreated(key);
        setName("");
        setKeys(await client.apiKeys.list());
      },
      setBusy,
      setError,
    );
  };
  const revoke = (id: string) =>
    void attempt(
      async () => {
        await client.apiKeys.revoke(id);
        if (created?.id === id) setCreated(null);
        setKeys(await client.apiKeys.list());
      },
      setBusy,
      setError,
    );

  return (
    <section className="card" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p className="muted">
        A key calls this app's API as you, from a script: send it as{" "}
        <code>Authorization: Bearer &lt;key&gt;</code>.
      </p>
      {created !== null && (
        <div className="new-key">
          <label htmlFor="new-key">
            New key “{created.name}”: copy it now, it is not shown again
          </label>
          <input
            id="new-key"
            className="key-value"
            readOnly
            value={created.key}
            onFocus={(event) => event.currentTarget.select()}
          />
        </div>
      )}
      {keys === null ? (
        <p>Loading…</p>
      ) : keys.length === 0 ? (
        <p className="muted">No keys yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id}>
                <td>{key.name}</td>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>{formatUnixDate(key.created_at)}</td>
                <td>{key.last_used_at === null ? "never" : formatUnixDate(key.last_used_at)}</td>
                <td>{key.expires_at === null ? "never" : formatUnixDate(key.expires_at)}</td>
                <td>
                  <button
                    type="button"
                    className="secondary"
                    disabled={busy}
                    aria-label={`Revoke ${key.name}`}
                    onClick={() => revoke(key.id)}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form onSubmit={create} className="inline">
        <label htmlFor="key-name">Key name</label>
        <input
          id="key-name"
          required
          maxLength={100}
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <label htmlFor="key-expiry">Expires</label>
        <select id="key-expiry" value={days} onChange={(event) => setDays(event.target.value)}>
          <option value="0">never</option>
          <option value="30">in 30 days</option>
          <option value="90">in 90 days</option>
        </select>
        <button type="submit" disabled={busy}>
          Create key
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
