import { useLiveQuery, useMutation } from "@svc/client/react";
import { type FormEvent, useState } from "react";

interface Org {
  readonly id: string;
  readonly name: string;
  readonly role: string;
}

/** The organization the session works in: its projects, its members and, for owners, invites. */
export function ActiveOrganization(props: { org: Org; switching: boolean; onLeave(): void }) {
  const { org } = props;
  return (
    <div className="active-org">
      <div className="row spread">
        <h3>Working in {org.name}</h3>
        <button type="button" className="link" disabled={props.switching} onClick={props.onLeave}>
          Stop working here
        </button>
      </div>
      <div className="grid">
        <Projects />
        <Members org={org} />
      </div>
    </div>
  );
}

function Projects() {
  const { value, loading, error } = useLiveQuery("listProjects");
  const [createProject, creating] = useMutation("createProject");
  const [name, setName] = useState("");
  const create = (event: FormEvent) => {
    event.preventDefault();
    void createProject({ name }).then(
      () => setName(""),
      () => undefined,
    );
  };
  const failure = error ?? creating.error;
  return (
    <section aria-labelledby="projects-title">
      <h4 id="projects-title">Projects</h4>
      {loading || value === undefined ? (
        <p>Loading…</p>
      ) : value.projects.length === 0 ? (
        <p className="muted">No projects yet.</p>
      ) : (
        <ul className="plain">
          {value.projects.map((project) => (
            <li key={project.id}>{project.name}</li>
          ))}
        </ul>
      )}
      <form onSubmit={create} className="inline">
        <label htmlFor="project-name">New project</label>
        <input
          id="project-name"
          required
          maxLength={120}
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <button type="submit" disabled={creating.pending}>
          Add
        </button>
      </form>
      {failure !== null && (
        <p role="alert" className="error">
          {failure.message}
        </p>
      )}
    </section>
  );
}

function Members(props: { org: Org }) {
  const { value, loading, error } = useLiveQuery("orgMembers", { orgId: props.org.id });
  const [inviteMember, inviting] = useMutation("inviteMember");
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<"member" | "owner">("member");
  const [sent, setSent] = useState<string | null>(null);
  const invite = (event: FormEvent) => {
    event.preventDefault();
    setSent(null);
    void inviteMember({ orgId: props.org.id, email, role }).then(
      (invitation) => {
        setEmail("");
        setSent(invitation.email);
      },
      () => undefined,
    );
  };
  const failure = error ?? inviting.error;
  return (
    <section aria-labelledby="members-title">
      <h4 id="members-title">Members</h4>
      {loading || value === undefined ? (
        <p>Loading…</p>
      ) : (
        <ul className="plain">
          {value.members.map((member) => (
            <li key={member.userId}>
              {member.displayName ?? "Someone without a profile"}{" "}
              <span className="muted">({member.role})</span>
            </li>
          ))}
        </ul>
      )}
      {props.org.role === "owner" && (
        <form onSubmit={invite}>
          <label htmlFor="invite-email">Invite by email</label>
          <input
            id="invite-email"
            type="email"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
          <label htmlFor="invite-role">Role</label>
          <select
            id="invite-role"
            value={role}
            onChange={(event) => setRole(event.target.value as "member" | "owner")}
          >
            <option value="member">member</option>
            <option value="owner">owner</option>
          </select>
          <button type="submit" disabled={inviting.pending}>
            Invite
          </button>
          {sent !== null && (
            <p role="status" className="ok">
              Invited {sent}. They will see it here once signed in with that address.
            </p>
          )}
        </form>
      )}
      {failure !== null && (
        <p role="alert" className="error">
          {failure.message}
        </p>
      )}
    </section>
  );
}
