import { useLiveQuery, useMutation, useSvcClient } from "@svc/client/react";
import { type FormEvent, useState } from "react";
import { ActiveOrganization } from "./active-organization.js";
import { attempt } from "./format.js";

/**
 * The caller's organizations with their role in each, the one their
 * session works in (`auth.selectOrg`), and a form to found a new one.
 */
export function Organizations() {
  const client = useSvcClient();
  const { value, loading, error } = useLiveQuery("myOrganizations");
  const [createOrganization, creating] = useMutation("createOrganization");
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [switchError, setSwitchError] = useState<string | null>(null);

  const select = (orgId: string | null) =>
    void attempt(
      async () => {
        await client.auth.selectOrg(orgId);
      },
      setBusy,
      setSwitchError,
    );

  const create = (event: FormEvent) => {
    event.preventDefault();
    void createOrganization({ name }).then(
      (org) => {
        setName("");
        select(org.id);
      },
      () => undefined,
    );
  };

  const active = value?.organizations.find((org) => org.id === value.activeOrgId);
  const failure = error?.message ?? creating.error?.message ?? switchError;
  return (
    <section className="card" aria-labelledby="orgs-title">
      <h2 id="orgs-title">Organizations</h2>
      {loading || value === undefined ? (
        <p>Loading…</p>
      ) : value.organizations.length === 0 ? (
        <p className="muted">You belong to no organization yet.</p>
      ) : (
        <ul className="list">
          {value.organizations.map((org) => (
            <li key={org.id} className={org.id === value.activeOrgId ? "active" : ""}>
              <span>
                <strong>{org.name}</strong> <span className="muted">({org.role})</span>
              </span>
              {org.id === value.activeOrgId ? (
                <span className="badge">Working here</span>
              ) : (
                <button
                  type="button"
                  className="secondary"
                  disabled={busy}
                  aria-label={`Work in ${org.name}`}
                  onClick={() => select(org.id)}
                >
                  Work here
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={create} className="inline">
        <label htmlFor="org-name">New organization</label>
        <input
          id="org-name"
          required
          maxLength={100}
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <button type="submit" disabled={creating.pending || busy}>
          Create
        </button>
      </form>
      {failure != null && (
        <p role="alert" className="error">
          {failure}
        </p>
      )}
      {active !== undefined && (
        <ActiveOrganization
          key={active.id}
          org={active}
          onLeave={() => select(null)}
          switching={busy}
        />
      )}
    </section>
  );
}
