import { useLiveQuery, useMutation } from "@svc/client/react";

/** Invitations addressed to the caller's verified email, to accept or decline. */
export function Invitations() {
  const { value, loading, error } = useLiveQuery("myInvitations");
  const [accept, accepting] = useMutation("acceptInvitation");
  const [decline, declining] = useMutation("declineInvitation");
  const busy = accepting.pending || declining.pending;
  const failure = error ?? accepting.error ?? declining.error;
  return (
    <section className="card" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      {loading || value === undefined ? (
        <p>Loading…</p>
      ) : !value.emailVerified ? (
        <p className="muted">Verify your email to see invitations sent to it.</p>
      ) : value.invitations.length === 0 ? (
        <p className="muted">No invitations.</p>
      ) : (
        <ul className="list">
          {value.invitations.map((invitation) => (
            <li key={invitation.id}>
              <span>
                <strong>{invitation.orgName}</strong> invites you as {invitation.role}
              </span>
              <span className="row">
                <button
                  type="button"
                  disabled={busy}
                  aria-label={`Accept the invitation to ${invitation.orgName}`}
                  onClick={() => void accept({ id: invitation.id }).catch(() => undefined)}
                >
                  Accept
                </button>
                <button
                  type="button"
                  className="secondary"
                  disabled={busy}
                  aria-label={`Decline the invitation to ${invitation.orgName}`}
                  onClick={() => void decline({ id: invitation.id }).catch(() => undefined)}
                >
                  Decline
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      {failure !== null && (
        <p role="alert" className="error">
          {failure.message}
        </p>
      )}
    </section>
  );
}
