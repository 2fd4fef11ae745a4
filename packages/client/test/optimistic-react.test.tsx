// @vitest-environment happy-dom-node
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import {
  generateId,
  type OptimisticWriter,
  type SvcClient,
  type WebSocketConstructor,
} from "../src/index.js";
import { useMutation, useQuery, useWriteQueue } from "../src/react/index.js";
import { manualTimers } from "./live-fixture.js";
import { listItems, withClient } from "./rendered.js";
import { emailSequence } from "./server.js";
import { serverForTests } from "./server-for-tests.js";
import {
  type NetworkSwitch,
  networkSwitch,
  signedInWith,
  writeWritesApp,
} from "./writes-fixture.js";

// Optimistic updates through the React hooks, rendered with React Testing
// Library against the real server: the row shows on click, before the
// server answers (the request is held at the network switch), and leaves
// again when the server refuses the write.

type Todo = { id: string; title: string; done: boolean; ownerId?: string };
type NewTodo = { id: string; title: string };

const server = serverForTests({ app: writeWritesApp });
afterEach(() => cleanup());
const nextEmail = emailSequence("optimistic-react");

async function setup(): Promise<{
  client: SvcClient;
  network: NetworkSwitch;
  clock: ReturnType<typeof manualTimers>;
}> {
  const network = networkSwitch();
  const clock = manualTimers();
  const { client } = await signedInWith(server().url, nextEmail(), {
    fetch: network.fetch,
    live: { WebSocket: globalThis.WebSocket as unknown as WebSocketConstructor },
    writes: { timers: clock.timers, random: () => 0.5 },
  });
  return { client, network, clock };
}

const showTodo = (tx: OptimisticWriter, args: NewTodo): void => {
  tx.insert("Todo", { id: args.id, title: args.title, done: false });
};

function Todos(props: { queued?: boolean }) {
  const { rows, loading } = useQuery<Todo>("Todo", { orderBy: "title" });
  const [add, added] = useMutation<NewTodo, Todo>("addTodo", {
    optimistic: showTodo,
    ...(props.queued === true && { queued: true }),
  });
  const [refuse, refused] = useMutation<NewTodo, never>("refuseTodo", { optimistic: showTodo });
  const [rename, renamed] = useMutation<{ id: string; title: unknown }, Todo>("renameTodo", {
    optimistic: (tx, args) => tx.update("Todo", args.id, { title: args.title as string }),
  });
  const queue = useWriteQueue();
  if (loading) return <p>loading</p>;
  const error = added.error ?? refused.error ?? renamed.error;
  return (
    <div>
      <ul aria-label="todos">
        {rows.map((todo) => (
          // Saved once the server's row (with its owner) took the optimistic one's place.
          <li
            key={todo.id}
          >{`${String(todo.title)} ${todo.ownerId === undefined ? "unsaved" : "saved"}`}</li>
        ))}
      </ul>
      <p>{`queue ${queue.status} ${queue.pending.length}`}</p>
      {error !== null && <p>{`error ${error.code}`}</p>}
      <button
        type="button"
        onClick={() => void add({ id: generateId(), title: "Milk" }).catch(() => undefined)}
      >
        add
      </button>
      <button
        type="button"
        onClick={() => void refuse({ id: generateId(), title: "Nope" }).catch(() => undefined)}
      >
        refuse
      </button>
      <button
        type="button"
        onClick={() => {
          const first = rows[0];
          if (first !== undefined) void rename({ id: first.id, title: 42 }).catch(() => undefined);
        }}
      >
        break
      </button>
    </div>
  );
}

describe("optimistic updates in React", () => {
  it("useMutation's optimistic row shows on click and becomes the server's row", async () => {
    const { client, network } = await setup();
    render(withClient(client, <Todos />));
    await screen.findByLabelText("todos");
    const held = network.hold();
    fireEvent.click(screen.getByText("add"));
    // Before the server has even seen the request.
    expect(listItems()).toEqual(["Milk unsaved"]);
    await held.sent;
    const sentId = (network.seen[0]?.body as { id?: string } | undefined)?.id;
    expect(sentId).toMatch(/^[0-9a-f]{40}$/);
    held.release();
    await waitFor(() => expect(listItems()).toEqual(["Milk saved"]));
    const [stored] = (await client.entities("Todo").list()).rows;
    expect(stored?.id).toBe(sentId);
  });

  it("a rejected write rolls the optimistic row back and shows the error", async () => {
    const { client, network } = await setup();
    render(withClient(client, <Todos />));
    await screen.findByLabelText("todos");
    const held = network.hold();
    fireEvent.click(screen.getByText("refuse"));
    expect(listItems()).toEqual(["Nope unsaved"]);
    held.release();
    await screen.findByText("error REFUSED");
    expect(listItems()).toEqual([]);
    expect((await client.entities("Todo").list()).rows).toEqual([]);
  });

  it("a rejected optimistic update returns the row to its live value", async () => {
    const { client, network } = await setup();
    await client.entities("Todo").insert({ title: "Bread", done: false });
    render(withClient(client, <Todos />));
    await waitFor(() => expect(listItems()).toEqual(["Bread saved"]));
    const held = network.hold();
    fireEvent.click(screen.getByText("break"));
    expect(listItems()).toEqual(["42 saved"]);
    held.release();
    await screen.findByText("error INVALID_FIELD");
    expect(listItems()).toEqual(["Bread saved"]);
  });

  it("queued while offline: the row and the waiting count show until the queue is sent", async () => {
    const { client, network } = await setup();
    render(withClient(client, <Todos queued />));
    await screen.findByText("queue idle 0");
    network.offline = true;
    fireEvent.click(screen.getByText("add"));
    expect(listItems()).toEqual(["Milk unsaved"]);
    await screen.findByText("queue waiting 1");
    network.offline = false;
    await act(() => client.queue.flush());
    await screen.findByText("queue idle 0");
    await waitFor(() => expect(listItems()).toEqual(["Milk saved"]));
  });
});
