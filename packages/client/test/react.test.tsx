// @vitest-environment happy-dom-node
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type WebSocketConstructor } from "../src/index.js";
import { useAuth, useLiveQuery, useMutation, useQuery } from "../src/react/index.js";
import { recordingWebSocket } from "./live-fixture.js";
import { listItems, withClient } from "./rendered.js";
import { emailSequence } from "./server.js";
import { serverForTests } from "./server-for-tests.js";

// The React hooks rendered with React Testing Library against the real
// server. The environment is happy-dom's DOM with Node's own WebSocket and
// fetch left in place (test/happy-dom-env.ts); the client is handed them
// explicitly all the same, as an app on another platform would.

const network = {
  WebSocket: globalThis.WebSocket as unknown as WebSocketConstructor,
  fetch: globalThis.fetch,
};

type Todo = { id: string; title: string; done: boolean };

const server = serverForTests();
afterEach(() => cleanup());
const nextEmail = emailSequence("react");

/** A client on Node's network, signed in as a new user. */
async function signedIn(options: { recorder?: ReturnType<typeof recordingWebSocket> } = {}) {
  const client = createClient({
    url: server().url,
    fetch: network.fetch,
    live: { WebSocket: options.recorder?.WebSocket ?? network.WebSocket },
  });
  const email = nextEmail();
  const sent = await client.auth.sendMagicCode(email);
  const result = await client.auth.verifyMagicCode(email, sent.dev_code ?? "");
  if (!("token" in result)) throw new Error("unexpected second factor");
  return { client, userId: result.user_id };
}

function TodoList(props: { done?: boolean }) {
  const { rows, loading, error } = useQuery<Todo>("Todo", {
    orderBy: "title",
    ...(props.done !== undefined && { where: { done: props.done } }),
  });
  if (error !== null) return <p>error {error.code}</p>;
  if (loading) return <p>loading</p>;
  return (
    <ul aria-label="todos">
      {rows.map((todo) => (
        <li key={todo.id}>{todo.title}</li>
      ))}
    </ul>
  );
}

function Counter() {
  const { value, loading } = useLiveQuery<{ rows: Todo[] }>("listTodos", { limit: 50 });
  const [create, { pending, error }] = useMutation<{ title: string }, { id: string }>("createTodo");
  return (
    <div>
      <p>{loading ? "loading" : `count ${value?.rows.length}`}</p>
      <p>{pending ? "pending" : "idle"}</p>
      {error !== null && <p>error {error.code}</p>}
      <button type="button" onClick={() => void create({ title: "Milk" })}>
        add
      </button>
      <button type="button" onClick={() => void create({ title: "" }).catch(() => undefined)}>
        bad
      </button>
    </div>
  );
}

function Account() {
  const { signedIn: isSignedIn, userId: id, loading, signOut } = useAuth();
  if (loading) return <p>auth loading</p>;
  return isSignedIn ? (
    <button type="button" onClick={() => void signOut()}>
      sign out {id}
    </button>
  ) : (
    <p>signed out</p>
  );
}

describe("React hooks", () => {
  it("useQuery renders the snapshot, then each live change", async () => {
    const { client } = await signedIn();
    await client.fn("createTodo", { title: "b" });
    render(withClient(client, <TodoList />));
    expect(screen.getByText("loading")).toBeTruthy();
    await waitFor(() => expect(listItems()).toEqual(["b"]));
    await act(() => client.fn("createTodo", { title: "a" }));
    await waitFor(() => expect(listItems()).toEqual(["b", "a"]));
  });

  it("useQuery follows its options by value and re-subscribes when they change", async () => {
    const { client } = await signedIn();
    const { id } = (await client.fn("createTodo", { title: "x" })) as { id: string };
    await client.fn("toggleTodo", { id });
    await client.fn("createTodo", { title: "y" });
    const view = render(withClient(client, <TodoList done={true} />));
    await waitFor(() => expect(listItems()).toEqual(["x"]));
    view.rerender(withClient(client, <TodoList done={false} />));
    await waitFor(() => expect(listItems()).toEqual(["y"]));
  });

  it("useMutation runs a function; useLiveQuery shows the query's new value", async () => {
    const { client } = await signedIn();
    render(withClient(client, <Counter />));
    await screen.findByText("count 0");
    fireEvent.click(screen.getByText("add"));
    expect(screen.getByText("pending")).toBeTruthy();
    await screen.findByText("count 1");
    await screen.findByText("idle");
    fireEvent.click(screen.getByText("bad"));
    await screen.findByText("error INVALID_ARGS");
  });

  it("useAuth follows sign-in and sign-out; no rows of the previous user stay on screen", async () => {
    const { client, userId } = await signedIn();
    await client.fn("createTodo", { title: "mine" });
    render(
      withClient(
        client,
        <>
          <Account />
          <TodoList />
        </>,
      ),
    );
    await screen.findByText(`sign out ${userId}`);
    await waitFor(() => expect(listItems()).toEqual(["mine"]));

    const other = await signedIn();
    await other.client.fn("createTodo", { title: "theirs" });
    await act(() =>
      client.setToken(null).then(async () => client.setToken(await other.client.token())),
    );
    await waitFor(() => expect(listItems()).toEqual(["theirs"]));
    // setToken with a token alone: the user is looked up.
    await screen.findByText(`sign out ${other.userId}`);

    fireEvent.click(screen.getByText(`sign out ${other.userId}`));
    await screen.findByText("signed out");
    await screen.findByText("error AUTH_REQUIRED");
  });

  it("unmounting the last component closes the shared socket", async () => {
    const recorder = recordingWebSocket(network.WebSocket);
    const { client } = await signedIn({ recorder });
    const view = render(
      withClient(
        client,
        <>
          <TodoList />
          <TodoList done={false} />
        </>,
      ),
    );
    await waitFor(() => expect(screen.getAllByLabelText("todos")).toHaveLength(2));
    expect(recorder.sockets).toHaveLength(1);
    view.unmount();
    expect(recorder.sockets[0]?.readyState).toBeGreaterThanOrEqual(2);
  });
});
