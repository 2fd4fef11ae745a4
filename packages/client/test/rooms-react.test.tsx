// @vitest-environment happy-dom-node
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useEffect, useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type WebSocketConstructor } from "../src/index.js";
import { usePresence, useRoom } from "../src/react/index.js";
import { recordingWebSocket } from "./live-fixture.js";
import { listItems, withClient } from "./rendered.js";
import { writeRoomsApp } from "./rooms-fixture.js";
import { emailSequence } from "./server.js";
import { serverForTests } from "./server-for-tests.js";

// usePresence and useRoom rendered with React Testing Library (in
// StrictMode) against the real server's shards.

const network = {
  WebSocket: globalThis.WebSocket as unknown as WebSocketConstructor,
  fetch: globalThis.fetch,
};

type Presence = { name: string };

const server = serverForTests({ app: writeRoomsApp });
afterEach(() => cleanup());
const nextEmail = emailSequence("rooms-react");

async function signedIn(WebSocket: WebSocketConstructor = network.WebSocket) {
  const client = createClient({ url: server().url, fetch: network.fetch, live: { WebSocket } });
  const email = nextEmail();
  const sent = await client.auth.sendMagicCode(email);
  const result = await client.auth.verifyMagicCode(email, sent.dev_code ?? "");
  if (!("token" in result)) throw new Error("unexpected second factor");
  return { client, userId: result.user_id };
}

function Online(props: { name: string }) {
  const { members, status, error, setPresence } = usePresence<Presence>("lobby", "react");
  useEffect(() => setPresence({ name: props.name }), [props.name, setPresence]);
  if (error !== null && status !== "open") return <p>error {error.code}</p>;
  return (
    <ul aria-label={`online ${status}`}>
      {members.map((member) => (
        <li key={member.connectionId}>{member.presence?.name ?? "?"}</li>
      ))}
    </ul>
  );
}

function Chat() {
  const [lines, setLines] = useState<string[]>([]);
  const { send, status } = useRoom<Presence, string>("lobby", "react", {
    onMessage: (message) => setLines((previous) => [...previous, `got ${message.data}`]),
  });
  return (
    <div>
      {lines.map((line) => (
        <p key={line}>{line}</p>
      ))}
      <button type="button" disabled={status !== "open"} onClick={() => send("hi from react")}>
        send
      </button>
    </div>
  );
}

function Denied() {
  const { status, error } = usePresence("team", "blue");
  return <p>{error === null ? status : `${status} ${error.code}`}</p>;
}

describe("room hooks", () => {
  it("usePresence lists who is online; useRoom sends and receives on the same connection", async () => {
    const recorder = recordingWebSocket(network.WebSocket);
    const { client } = await signedIn(recorder.WebSocket);
    const view = render(
      withClient(
        client,
        <>
          <Online name="Ada" />
          <Chat />
        </>,
      ),
    );
    await waitFor(() => expect(listItems()).toEqual(["Ada"]));
    expect(screen.getByLabelText("online open")).toBeTruthy();

    const bob = await signedIn();
    const bobRoom = bob.client.room<Presence, string>("lobby", "react", {
      presence: { name: "Bob" },
    });
    const bobGot: string[] = [];
    bobRoom.onMessage((message) => bobGot.push(message.data));
    await bobRoom.ready;
    await waitFor(() => expect(listItems()).toEqual(["Ada", "Bob"]));

    await act(async () => bobRoom.send("hello react"));
    await screen.findByText("got hello react");
    fireEvent.click(screen.getByText("send"));
    await waitFor(() => expect(bobGot).toEqual(["hi from react"]));
    // Both hooks, StrictMode's double mount included, share one live member.
    expect(bobRoom.members).toHaveLength(2);
    const open = recorder.sockets.filter((socket) => socket.readyState === 1);
    expect(open).toHaveLength(1);

    bobRoom.close();
    await waitFor(() => expect(listItems()).toEqual(["Ada"]));
    view.unmount();
    await waitFor(() =>
      expect(recorder.sockets.every((socket) => socket.readyState >= 2)).toBe(true),
    );
  });

  it("shows a refused join as an error", async () => {
    const { client } = await signedIn();
    render(withClient(client, <Denied />));
    await screen.findByText("refused JOIN_DENIED");
  });
});
