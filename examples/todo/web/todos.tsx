import { useAuth, useMutation, useQuery } from "@svc/client/react";
import { type FormEvent, type ReactNode, useMemo, useState } from "react";
import { errorMessage } from "./error-message.js";
import type { Api } from "./svc-api.js";

type Priority = Api["entities"]["Todo"]["priority"];
type TodoRow = Api["entities"]["Todo"] & { readonly id: string };

/** How many of the newest todos the first snapshot holds. */
const SNAPSHOT_SIZE = 200;

const newestFirst = (a: TodoRow, b: TodoRow): number =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1;

/** The signed-in user's todos, live: every tab shows a change as soon as it commits. */
export function Todos(): ReactNode {
  const { signOut } = useAuth();
  // The User policy lets each user read only their own row.
  const me = useQuery("User", { limit: 1 });
  // The Todo policy sends each user their own todos only. Rows that arrive
  // after the snapshot are appended, so the list is sorted here.
  const todos = useQuery("Todo", { orderBy: "-createdAt", limit: SNAPSHOT_SIZE });
  const rows = useMemo(() => [...todos.rows].sort(newestFirst), [todos.rows]);
  const open = rows.filter((todo) => !todo.done).length;

  return (
    <>
      <header className="row spread">
        <span className="muted">{me.rows[0]?.email ?? ""}</span>
        <button type="button" className="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <NewTodo />
      {todos.error !== null && (
        <p role="alert" className="error">
          {errorMessage(todos.error)}
        </p>
      )}
      {todos.loading ? (
        <p className="muted">Loading…</p>
      ) : rows.length === 0 ? (
        <p className="muted">Nothing to do yet. Add your first todo above.</p>
      ) : (
        <>
          <ul className="todos" aria-label="Todos">
            {rows.map((todo) => (
              <TodoItem key={todo.id} todo={todo} />
            ))}
          </ul>
          <p className="muted" aria-live="polite">
            {open} open · {rows.length - open} done
          </p>
        </>
      )}
    </>
  );
}

function NewTodo(): ReactNode {
  const [title, setTitle] = useState("");
  const [priority, setPriority] = useState<Priority>("low");
  const [createTodo, { pending, error }] = useMutation("createTodo");

  function submit(event: FormEvent<HTMLFormElement>): void {
    event.preventDefault();
    const text = title.trim();
    if (text === "") return;
    // The list updates itself from the live query; the form only resets.
    createTodo({ title: text, priority }).then(
      () => {
        setTitle("");
        setPriority("low");
      },
      () => undefined,
    );
  }

  return (
    <form className="card stack" onSubmit={submit} aria-label="Add a todo">
      <div className="row">
        <label className="grow">
          New todo
          <input
            required
            maxLength={500}
            value={title}
            onChange={(event) => setTitle(event.target.value)}
            placeholder="Buy milk"
          />
        </label>
        <label>
          Priority
          <select
            value={priority}
            onChange={(event) => setPriority(event.target.value as Priority)}
          >
            <option value="low">Low</option>
            <option value="high">High</option>
          </select>
        </label>
        <button type="submit" disabled={pending}>
          Add
        </button>
      </div>
      {error !== null && (
        <p role="alert" className="error">
          {errorMessage(error)}
        </p>
      )}
    </form>
  );
}

function TodoItem({ todo }: { todo: TodoRow }): ReactNode {
  const [toggleTodo, { pending, error }] = useMutation("toggleTodo");
  return (
    <li className={todo.done ? "done" : undefined}>
      <label>
        <input
          type="checkbox"
          checked={todo.done}
          disabled={pending}
          onChange={() => void toggleTodo({ id: todo.id }).catch(() => undefined)}
        />
        <span>{todo.title}</span>
      </label>
      {todo.priority === "high" && <span className="badge">high</span>}
      {error !== null && (
        <span role="alert" className="error">
          {errorMessage(error)}
        </span>
      )}
    </li>
  );
}
