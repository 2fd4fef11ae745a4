import type { AuditEvent } from "@svc/auth-core";
import { OPERATOR_CLOSE } from "@svc/sync";
import { testDatabases } from "@svc/tooling/databases";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AuthTestServer, readJSON, registerPassword } from "./auth-fixtures.js";
import { ADMIN_TOKEN, adminRequest } from "./fixtures.js";
import {
  alertOf,
  isSignInForm,
  rowsOf,
  StudioClient,
  studioPerTest,
  textOf,
} from "./studio-fixtures.js";
import { connectWs, type WsClient } from "./ws-client.js";

// The Live page: this server's open WebSocket, SSE and room connections
// with their caller (never a token) and subscriptions, the rooms, and a
// Close button that is a CSRF-checked, audited POST.

describe.each(testDatabases())("the studio's Live page on $name", (database) => {
  // Its afterEach (no internal error) runs after this suite's own.
  const app = studioPerTest(database);
  let server: AuthTestServer;
  let studio: StudioClient;
  const sockets: WsClient[] = [];
  const streams: AbortController[] = [];

  beforeEach(() => {
    ({ server, studio } = app);
  });

  afterEach(() => {
    for (const stream of streams.splice(0)) stream.abort();
    for (const socket of sockets.splice(0)) socket.socket.terminate();
  });

  it("lists each connection's caller, transport and subscriptions, and the rooms, never a token", async () => {
    const ada = await registerPassword(server, "ada@example.com");
    const socket = await connectWs(server, { token: ada.token });
    sockets.push(socket);
    socket.send({ type: "subscribe", id: "mine", entity: "Note", where: { ownerId: ada.user_id } });
    expect(await socket.next()).toMatchObject({ type: "snapshot", id: "mine" });
    socket.send({ type: "subscribe", id: "echoed", query: "echo", args: { secret: "hunter2" } });
    expect(await socket.next()).toMatchObject({ type: "result", id: "echoed" });
    const stream = new AbortController();
    streams.push(stream);
    const events = await fetch(`${server.url}/events?entity=Note`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "user-agent": "studio-live-test" },
      signal: stream.signal,
    });
    expect(events.status).toBe(200);
    const member = await connectWs(server, { token: ada.token, path: "/shard/lobby/general" });
    sockets.push(member);
    expect(await member.next()).toMatchObject({ type: "welcome" });

    const page = await studio.get("/studio/live");
    expect(page.status).toBe(200);
    expect(page.html).toContain('<a href="/studio/live" aria-current="page">Live</a>');
    expect(page.html).toContain('<span class="total">3 connections</span>');
    const rows = rowsOf(page);
    const byTransport = (transport: string) =>
      rows.find((row) => row.cells.transport === transport);
    expect(byTransport("WebSocket")?.cells).toMatchObject({
      caller: `${ada.user_id.slice(0, 8)}… session`,
      subscriptions: expect.stringContaining("mine: Note where"),
    });
    expect(byTransport("WebSocket")?.cells.subscriptions).toContain("echoed: query echo");
    expect(byTransport("SSE")?.cells).toMatchObject({
      caller: "admin token",
      userAgent: "studio-live-test",
      subscriptions: expect.stringContaining("Note"),
    });
    expect(byTransport("room")?.cells.subscriptions).toBe("room lobby / general");
    // The rooms: one with one member here.
    expect(textOf(page.html)).toContain("lobbygeneral1");
    for (const secret of [ada.token, ADMIN_TOKEN, "hunter2"])
      expect(page.html).not.toContain(secret);

    const onlyRooms = await studio.get("/studio/live?transport=room");
    expect(rowsOf(onlyRooms).map((row) => row.cells.transport)).toEqual(["room"]);
    const onlyAda = await studio.get(`/studio/live?user=${ada.user_id}`);
    expect(rowsOf(onlyAda)).toHaveLength(2);
    const bad = await studio.get("/studio/live?transport=carrier-pigeon");
    expect(bad.status).toBe(400);
    expect(alertOf(bad)?.message).toBe(
      "The parameter transport must be one of websocket, sse, room.",
    );
  });

  it("closes a connection with a CSRF-checked POST, and records it in the audit log", async () => {
    const ada = await registerPassword(server, "ada@example.com");
    const socket = await connectWs(server, { token: ada.token });
    sockets.push(socket);
    socket.send({ type: "subscribe", id: "mine", entity: "Note" });
    await socket.next();
    const page = await studio.get("/studio/live");
    const [row] = rowsOf(page);
    const id = row?.id ?? "";
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(page.html).toContain(
      `action="/studio/live/${id}/close" data-confirm="Close this connection?"`,
    );

    // Without the CSRF token, or from another origin: refused, still open.
    expect((await studio.post(`/studio/live/${id}/close`, {}, { csrf: null })).status).toBe(403);
    expect(
      (await studio.post(`/studio/live/${id}/close`, {}, { origin: "https://evil.example" }))
        .status,
    ).toBe(403);
    expect(
      (await new StudioClient(server).post(`/studio/live/${id}/close`, {}, { csrf: null })).status,
    ).toBe(401);
    expect(rowsOf(await studio.get("/studio/live"))).toHaveLength(1);

    const closed = await studio.post(`/studio/live/${id}/close`);
    expect(closed.status).toBe(303);
    expect(closed.location).toBe("/studio/live?done=closed");
    expect(await socket.closed).toEqual({ code: 1013, reason: OPERATOR_CLOSE });
    const after = await studio.get(closed.location ?? "");
    expect(after.html).toContain("The connection is closed.");
    await expect.poll(async () => rowsOf(await studio.get("/studio/live"))).toEqual([]);

    const [event] = (
      await readJSON<{ events: AuditEvent[] }>(
        adminRequest(server, "GET", "/api/auth/audit?kind=StudioLiveClose"),
      )
    ).body.events;
    expect(event).toMatchObject({
      user_id: null,
      data: { actor: "studio", connection_id: id, transport: "websocket", user_id: ada.user_id },
    });
    // Closed already, or never a connection: 404.
    for (const missing of [id, "nope", "0".repeat(24)]) {
      const again = await studio.post(`/studio/live/${missing}/close`);
      expect(again.status, missing).toBe(404);
      expect(alertOf(again)?.code).toBe("NOT_FOUND");
    }
  });

  it("needs a studio session", async () => {
    const anonymous = await new StudioClient(server).get("/studio/live");
    expect(anonymous.status).toBe(401);
    expect(isSignInForm(anonymous)).toBe(true);
  });
});
