import { useLiveQuery, useMutation } from "@svc/client/react";
import { useState } from "react";
import { formatDate } from "./format.js";

const PAGE_SIZE = 25;
type Status = "waiting" | "invited";

/**
 * The admin view: everyone in line, live, filtered by status and paged
 * by cursor, with an invite button per person. The server checks the
 * caller is an admin on every call; this view only hides itself from others.
 */
export function AdminView() {
  const [status, setStatus] = useState<Status | "all">("all");
  // The cursors of the pages before the current one; the last is the current page's.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const page = useLiveQuery("listEntries", {
    limit: PAGE_SIZE,
    ...(status !== "all" && { status }),
    ...(cursor !== undefined && { cursor }),
  });
  const [invite, inviting] = useMutation("invite");
  const failure = page.error ?? inviting.error;

  return (
    <section className="card admin" aria-labelledby="admin-title">
      <div className="admin-head">
        <h2 id="admin-title">Everyone in line</h2>
        <label>
          Show{" "}
          <select
            value={status}
            onChange={(event) => {
              setStatus(event.target.value as Status | "all");
              setCursors([]);
            }}
          >
            <option value="all">everyone</option>
            <option value="waiting">waiting</option>
            <option value="invited">invited</option>
          </select>
        </label>
      </div>
      {failure !== null && (
        <p role="alert" className="error">
          {failure.message}
        </p>
      )}
      {page.loading || page.value === undefined ? (
        <p>Loading the list…</p>
      ) : page.value.entries.length === 0 ? (
        <p>Nobody here yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Email</th>
              <th scope="col">Note</th>
              <th scope="col">Joined</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {page.value.entries.map((entry) => (
              <tr key={entry.id}>
                <td>{entry.position}</td>
                <td>{entry.email}</td>
                <td>{entry.note ?? ""}</td>
                <td>{formatDate(entry.createdAt)}</td>
                <td>
                  {entry.status === "invited" ? (
                    <span className="badge">
                      Invited {formatDate(entry.invitedAt ?? entry.createdAt)}
                    </span>
                  ) : (
                    <button
                      type="button"
                      disabled={inviting.pending}
                      aria-label={`Invite ${entry.email}`}
                      onClick={() => void invite({ id: entry.id }).catch(() => undefined)}
                    >
                      Invite
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav className="pager" aria-label="Pages">
        <button
          type="button"
          className="link"
          disabled={cursors.length === 0}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Previous
        </button>
        <button
          type="button"
          className="link"
          disabled={page.value?.nextCursor == null}
          onClick={() => {
            const next = page.value?.nextCursor;
            if (next != null) setCursors([...cursors, next]);
          }}
        >
          Next
        </button>
      </nav>
    </section>
  );
}
