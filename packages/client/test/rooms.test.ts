import { testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import { createClient, type RoomMessage, type SvcClient, SvcError } from "../src/index.js";
import { manualTimers, recordingWebSocket } from "./live-fixture.js";
import { writeRoomsApp } from "./rooms-fixture.js";
import { ADMIN_TOKEN, emailSequence, signedInClient } from "./server.js";
import { serverForTests } from "./server-for-tests.js";
import { waitFor } from "./wait-for.js";

// client.room against the real server's shards (/shard/<kind>[/<key>]), on
// every database (sessions and the `exists` join rule read it).

type Presence = { name: string };

describe.each(testDatabases())("rooms ($name)", (database) => {
  const server = serverForTests({ app: writeRoomsApp, database });
  const nextEmail = emailSequence(`rooms-${database.name}`);

  /** A signed-in client whose sockets are recorded and whose reconnects wait for the test. */
  async function member() {
    const { client: signedIn, userId } = await signedInClient(server(), nextEmail());
    const recorder = recordingWebSocket();
    const clock = manualTimers();
    const client = createClient({
      url: server().url,
      token: (await signedIn.token()) ?? "",
      live: { WebSocket: recorder.WebSocket, timers: clock.timers, random: () => 0.5 },
    });
    return { client, userId, recorder, clock };
  }

  const names = (members: readonly { presence: Presence | null }[]) =>
    members.map((m) => m.presence?.name ?? null);

  it("shows who is here with their presence: join, presence changes and leave", async () => {
    const ada = await member();
    const bob = await member();
    const adaRoom = ada.client.room<Presence>("lobby", "one", { presence: { name: "Ada" } });
    const joined = await adaRoom.ready;
    expect(joined.status).toBe("open");
    expect(joined.self).toMatchObject({ userId: ada.userId, presence: { name: "Ada" } });
    expect(names(joined.members)).toEqual(["Ada"]);

    const bobRoom = bob.client.room<Presence>("lobby", "one");
    await bobRoom.ready;
    // Bob arrives after Ada's presence reached the server: he sees it in his welcome.
    await waitFor(() => expect(names(bobRoom.members)).toEqual(["Ada", null]));
    await waitFor(() =>
      expect(adaRoom.members.map((m) => m.userId)).toEqual([ada.userId, bob.userId]),
    );

    const seen: string[] = [];
    adaRoom.subscribe((state) => seen.push(names(state.members).join(",")));
    bobRoom.setPresence({ name: "Bob" });
    expect(bobRoom.self?.presence).toEqual({ name: "Bob" });
    await waitFor(() => expect(names(adaRoom.members)).toEqual(["Ada", "Bob"]));

    bobRoom.close();
    expect(bobRoom.status).toBe("closed");
    await waitFor(() => expect(names(adaRoom.members)).toEqual(["Ada"]));
    expect(seen).toEqual(["Ada,Bob", "Ada"]);
    // Another key is another instance: nobody from "one" is there.
    const elsewhere = bob.client.room("lobby", "two");
    expect((await elsewhere.ready).members).toHaveLength(1);
    elsewhere.close();
    adaRoom.close();
  });

  it("relays messages to the others, and direct messages to one member only", async () => {
    const [ada, bob, cy] = await Promise.all([member(), member(), member()]);
    const inbox = { ada: [] as RoomMessage[], bob: [] as RoomMessage[], cy: [] as RoomMessage[] };
    const rooms = {
      ada: ada.client.room("lobby", "talk", { onMessage: (m) => inbox.ada.push(m) }),
      bob: bob.client.room("lobby", "talk", { onMessage: (m) => inbox.bob.push(m) }),
      cy: cy.client.room("lobby", "talk", { onMessage: (m) => inbox.cy.push(m) }),
    };
    await Promise.all(Object.values(rooms).map((room) => room.ready));
    await waitFor(() => expect(rooms.ada.members).toHaveLength(3));

    rooms.ada.send({ text: "hello all" });
    await waitFor(() => expect(inbox.bob).toHaveLength(1));
    await waitFor(() => expect(inbox.cy).toHaveLength(1));
    expect(inbox.bob[0]).toEqual({
      from: rooms.ada.self?.connectionId,
      userId: ada.userId,
      data: { text: "hello all" },
    });

    rooms.bob.send("psst", { to: rooms.cy.self?.connectionId ?? "" });
    await waitFor(() => expect(inbox.cy).toHaveLength(2));
    expect(inbox.cy[1]).toMatchObject({ userId: bob.userId, data: "psst" });
    // The sender gets no copy, and Ada was not addressed.
    rooms.cy.send("done");
    await waitFor(() => expect(inbox.ada).toHaveLength(1));
    expect(inbox.ada.map((m) => m.data)).toEqual(["done"]);
    await waitFor(() => expect(inbox.bob).toHaveLength(2));
    expect(inbox.bob.map((m) => m.data)).toEqual([{ text: "hello all" }, "done"]);

    const errors: SvcError[] = [];
    rooms.ada.onError((error) => errors.push(error));
    rooms.ada.send("anyone?", { to: "no-such-connection" });
    await waitFor(() => expect(errors.map((e) => e.code)).toEqual(["MEMBER_NOT_FOUND"]));
    expect(rooms.ada.state.error?.code).toBe("MEMBER_NOT_FOUND");
    expect(rooms.ada.status).toBe("open");

    expect(() => rooms.ada.send("x".repeat(40_000))).toThrowError(
      expect.objectContaining({ code: "DATA_TOO_LARGE" }),
    );
    for (const room of Object.values(rooms)) room.close();
  });

  it("rejoins after a dropped socket with backoff, presence and waiting messages", async () => {
    const ada = await member();
    const bob = await member();
    const adaRoom = ada.client.room<Presence>("lobby", "drop", { presence: { name: "Ada" } });
    // Ada is in before Bob joins, so the members are listed in that order
    // (joining both at once made the order a race on a loaded machine).
    await adaRoom.ready;
    const got: unknown[] = [];
    const bobRoom = bob.client.room<Presence>("lobby", "drop", {
      onMessage: (message) => got.push(message.data),
    });
    await bobRoom.ready;
    const before = adaRoom.self?.connectionId;
    await waitFor(() => expect(names(bobRoom.members)).toEqual(["Ada", null]));

    ada.recorder.sockets[0]?.close();
    await waitFor(() => expect(adaRoom.status).toBe("reconnecting"));
    expect(adaRoom.members).toEqual([]);
    expect(ada.clock.pending()).toBe(1);
    // Full jitter: half (random 0.5) of the first ceiling, 250 ms.
    expect(ada.clock.scheduled).toEqual([125]);
    await waitFor(() => expect(bobRoom.members).toHaveLength(1));
    adaRoom.send("sent while away");

    ada.clock.fire();
    await waitFor(() => expect(adaRoom.status).toBe("open"));
    expect(ada.recorder.sockets).toHaveLength(2);
    expect(adaRoom.self?.connectionId).not.toBe(before);
    // The presence is announced again and the waiting message goes out.
    await waitFor(() => expect(names(bobRoom.members)).toEqual([null, "Ada"]));
    await waitFor(() => expect(got).toEqual(["sent while away"]));
    adaRoom.close();
    bobRoom.close();
    expect(ada.recorder.sockets[1]?.readyState).toBeGreaterThanOrEqual(2);
  });

  it("surfaces a refused join as JOIN_DENIED and does not retry", async () => {
    const ada = await member();
    const errors: string[] = [];
    const denied = ada.client.room("team", "red", { onError: (error) => errors.push(error.code) });
    const refusal = await denied.ready.then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(SvcError);
    expect(refusal).toMatchObject({ code: "JOIN_DENIED", status: 0 });
    expect(denied.status).toBe("refused");
    expect(denied.state.error?.code).toBe("JOIN_DENIED");
    expect(errors).toEqual(["JOIN_DENIED"]);
    expect(ada.clock.pending()).toBe(0);

    // The join rule reads the database: a membership lets her in.
    await ada.client.entities("Membership").insert({ teamId: "red" });
    const admitted = ada.client.room("team", "red");
    await expect(admitted.ready).resolves.toMatchObject({ status: "open" });
    const shut = ada.client.room("shut");
    await expect(shut.ready).rejects.toMatchObject({ code: "JOIN_DENIED" });
    // The admin token passes every join rule.
    const admin = createClient({ url: server().url, token: ADMIN_TOKEN });
    const adminRoom = admin.room("shut");
    await expect(adminRoom.ready).resolves.toMatchObject({ self: { userId: null } });
    for (const room of [denied, admitted, shut, adminRoom]) room.close();
  });

  it("joins as the new caller on every identity change", async () => {
    const anonymous = createClient({ url: server().url });
    const room = anonymous.room("lobby", "auth");
    await expect(room.ready).rejects.toMatchObject({ code: "AUTH_REQUIRED" });
    expect(room.status).toBe("refused");

    const { client: other, userId } = await signedInClient(server(), nextEmail());
    await anonymous.setToken(await other.token());
    await waitFor(() => expect(room.status).toBe("open"));
    expect(room.self?.userId).toBe(userId);

    await anonymous.setToken(null);
    await waitFor(() => expect(room.status).toBe("refused"));
    expect(room.state.error?.code).toBe("AUTH_REQUIRED");
    expect(room.members).toEqual([]);
    room.close();
  });

  it("refuses names the server could never serve, and ends ready on close", async () => {
    const client: SvcClient = createClient({ url: server().url });
    expect(() => client.room("no/such")).toThrowError(
      expect.objectContaining({ code: "INVALID_ROOM" }),
    );
    expect(() => client.room("lobby", "a b")).toThrowError(
      expect.objectContaining({ code: "INVALID_ROOM" }),
    );
    const ada = await member();
    const room = ada.client.room("lobby", "short");
    room.close();
    await expect(room.ready).rejects.toMatchObject({ code: "ROOM_CLOSED" });
    expect(room.status).toBe("closed");
  });
});
