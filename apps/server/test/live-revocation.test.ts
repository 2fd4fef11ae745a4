import { connect } from "node:net";
import type { ServerFrame } from "@svc/sync";
import { postgresTestDatabase, testDatabases } from "@svc/tooling/databases";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appServerPerTest } from "./app-server.js";
import {
  type AuthTestServer,
  createTestDatabase,
  insertRow,
  post,
  readJSON,
  registerPassword,
  request,
  type SignInBody,
} from "./auth-fixtures.js";
import { ADMIN_TOKEN, adminRequest, databaseEnv, tempDir } from "./fixtures.js";
import { killAll, SPAWN_BASE_ENV, spawnServer } from "./process.js";
import { entity, OWNER, signInManifest, writeTestApp } from "./test-app.js";
import { attemptWs, connectWs, nextOf, type WsClient } from "./ws-client.js";

// Regression tests for issue 21's first and third findings: a credential
// revoked while a live connection is open (sign-out, every session, an API
// key, account deletion, a password change) used to keep its socket's read
// access, and a membership removed by the admin kept pushing the
// organization's rows. Now every open WebSocket, SSE stream and room
// connection of that caller is re-checked within a second, on every server.

/** Tasks follow their owner; Projects belong to the organization the caller acts in. */
function writeApp(dir: string): string {
  const manifest = signInManifest("live-revocation", {
    entities: [
      entity("Task", { title: "string", ownerId: OWNER }),
      entity("OrgMember", { orgId: "string", userId: "string", role: "string" }),
      entity("Project", { orgId: "string", name: "string" }),
      entity("Secret", { value: "string" }),
    ],
    rooms: [{ name: "lobby", join: "auth.userId != null" }],
    policies: [
      {
        name: "own tasks",
        entity: "Task",
        allowRead: "auth.userId == data.ownerId",
        allowInsert: "auth.userId == data.ownerId",
      },
      {
        name: "org projects",
        entity: "Project",
        allowRead: "auth.tenantId == data.orgId",
      },
    ],
  });
  return writeTestApp(dir, manifest);
}

/** Resolves with the close, or rejects when the socket is still open after `ms`. */
function closedWithin(client: WsClient, ms: number): Promise<{ code: number; reason: string }> {
  return Promise.race([
    client.closed,
    new Promise<never>((_resolve, reject) =>
      setTimeout(() => reject(new Error(`the socket was still open after ${ms} ms`)), ms),
    ),
  ]);
}

/** An open SSE stream, read event by event. */
interface EventStream {
  next(): Promise<ServerFrame | "end">;
  close(): void;
}

async function openEvents(
  url: string,
  path: string,
  token: string,
): Promise<{ status: number; stream: EventStream; body: unknown }> {
  const abort = new AbortController();
  const response = await fetch(`${url}${path}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  if (response.status !== 200) {
    return {
      status: response.status,
      body: await response.json(),
      stream: { next: async () => "end", close: () => undefined },
    };
  }
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const stream: EventStream = {
    async next() {
      for (;;) {
        const boundary = buffered.indexOf("\n\n");
        if (boundary !== -1) {
          const event = buffered.slice(0, boundary);
          buffered = buffered.slice(boundary + 2);
          const data = event
            .split("\n")
            .filter((line) => line.startsWith("data: "))
            .map((line) => line.slice(6))
            .join("\n");
          if (data !== "") return JSON.parse(data) as ServerFrame;
          continue;
        }
        const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (chunk.done === true) return "end";
        buffered += decoder.decode(chunk.value, { stream: true });
      }
    },
    close: () => abort.abort(),
  };
  return { status: 200, stream, body: undefined };
}

describe.each(testDatabases())(
  "live connections follow credential changes on $name",
  (database) => {
    const app = appServerPerTest(database, {
      writeApp,
      env: { SVC_RATE_LIMIT: "off", SVC_LIVE_MAX_CONNECTIONS_PER_USER: "3" },
    });
    let server: AuthTestServer;
    let alice: SignInBody;
    const clients: WsClient[] = [];
    const streams: EventStream[] = [];

    const open = async (token: string, path?: string): Promise<WsClient> => {
      const client = await connectWs(server, { token, ...(path !== undefined && { path }) });
      clients.push(client);
      return client;
    };

    beforeEach(async () => {
      server = app.server;
      alice = await registerPassword(server, "alice@example.com");
    });

    afterEach(async () => {
      for (const stream of streams.splice(0)) stream.close();
      await Promise.all(clients.splice(0).map((client) => client.close()));
    });

    const addTask = async (token: string, ownerId: string, title: string) => {
      await insertRow(server, "Task", { title, ownerId }, token);
    };

    it.each([
      ["sign-out", (token: string) => request(server, "DELETE", "/api/auth/session", { token })],
      [
        "revoking every session",
        (token: string) => request(server, "DELETE", "/api/auth/sessions", { token }),
      ],
      [
        "deleting the account",
        (token: string) => request(server, "DELETE", "/api/auth/account", { token }),
      ],
    ])("closes the socket with 1008 within a second of %s", async (_name, revoke) => {
      const client = await open(alice.token);
      client.send({ type: "subscribe", id: "t", entity: "Task" });
      await nextOf(client, "snapshot");
      const revoked = await revoke(alice.token);
      expect(revoked.status, await revoked.clone().text()).toBeLessThan(300);
      expect(await closedWithin(client, 1000)).toEqual({
        code: 1008,
        reason: "credential revoked",
      });
    });

    it("closes a socket opened with an API key when the key is revoked", async () => {
      const created = await readJSON<{ key: string; id: string }>(
        post(server, "/api/auth/api-keys", { name: "cli" }, { token: alice.token }),
      );
      expect(created.status).toBe(200);
      const client = await open(created.body.key);
      client.send({ type: "subscribe", id: "t", entity: "Task" });
      await nextOf(client, "snapshot");
      // Another socket of Alice's, on her session, stays open.
      const other = await open(alice.token);
      const revoked = await request(server, "DELETE", `/api/auth/api-keys/${created.body.id}`, {
        token: alice.token,
      });
      expect(revoked.status).toBe(200);
      expect(await closedWithin(client, 1000)).toMatchObject({ code: 1008 });
      other.send({ type: "ping" });
      expect(await other.next()).toEqual({ type: "pong" });
    });

    it("closes the other sessions' sockets after a password change, keeping the current one", async () => {
      const second = await readJSON<SignInBody>(
        post(server, "/api/auth/password/login", {
          email: "alice@example.com",
          password: "correct horse battery",
        }),
      );
      expect(second.status).toBe(200);
      const stale = await open(alice.token);
      const current = await open(second.body.token);
      const changed = await post(
        server,
        "/api/auth/password/change",
        { currentPassword: "correct horse battery", newPassword: "another horse battery" },
        { token: second.body.token },
      );
      expect(changed.status, await changed.clone().text()).toBe(200);
      expect(await closedWithin(stale, 1000)).toMatchObject({ code: 1008 });
      current.send({ type: "ping" });
      expect(await current.next()).toEqual({ type: "pong" });
    });

    it("no change reaches a revoked socket, even one that had subscribed", async () => {
      const client = await open(alice.token);
      client.send({ type: "subscribe", id: "t", entity: "Task" });
      await nextOf(client, "snapshot");
      const api = await readJSON<{ key: string }>(
        post(server, "/api/auth/api-keys", { name: "writer" }, { token: alice.token }),
      );
      await request(server, "DELETE", "/api/auth/session", { token: alice.token });
      await closedWithin(client, 1000);
      await addTask(api.body.key, alice.user_id, "after sign-out");
      expect(client.socket.readyState).toBe(client.socket.CLOSED);
    });

    it("ends an SSE stream with CREDENTIAL_REVOKED on sign-out", async () => {
      const { status, stream } = await openEvents(server.url, "/events?entity=Task", alice.token);
      expect(status).toBe(200);
      streams.push(stream);
      expect(await stream.next()).toMatchObject({ type: "snapshot" });
      await request(server, "DELETE", "/api/auth/session", { token: alice.token });
      const started = Date.now();
      expect(await stream.next()).toMatchObject({
        type: "error",
        error: { code: "CREDENTIAL_REVOKED" },
      });
      expect(await stream.next()).toBe("end");
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it("closes a room member's socket on sign-out", async () => {
      const member = await open(alice.token, "/shard/lobby");
      await request(server, "DELETE", "/api/auth/session", { token: alice.token });
      expect(await closedWithin(member, 1000)).toEqual({
        code: 1008,
        reason: "credential revoked",
      });
    });

    it("re-reads an organization member's roles: a removed membership stops the org's rows", async () => {
      const member = await readJSON<{ id: string }>(
        adminRequest(server, "POST", "/api/entities/OrgMember", {
          orgId: "o1",
          userId: alice.user_id,
          role: "member",
        }),
      );
      expect(member.status).toBe(201);
      const selected = await post(
        server,
        "/api/auth/orgs/select",
        { orgId: "o1" },
        { token: alice.token },
      );
      expect(selected.status, await selected.clone().text()).toBe(200);
      await adminRequest(server, "POST", "/api/entities/Project", { orgId: "o1", name: "first" });
      const client = await open(alice.token);
      client.send({ type: "subscribe", id: "p", entity: "Project" });
      expect((await nextOf(client, "snapshot")).rows).toHaveLength(1);
      const removed = await adminRequest(
        server,
        "DELETE",
        `/api/entities/OrgMember/${member.body.id}`,
      );
      expect(removed.status).toBeLessThan(300);
      // The subscription is dropped with RESYNC_REQUIRED (within a second: well before
      // the minute-long sweep); the new snapshot is read as she is now.
      const started = Date.now();
      expect(await nextOf(client, "error")).toMatchObject({
        id: "p",
        error: { code: "RESYNC_REQUIRED" },
      });
      expect(Date.now() - started).toBeLessThan(1000);
      client.send({ type: "subscribe", id: "p", entity: "Project" });
      expect((await nextOf(client, "snapshot")).rows).toEqual([]);
      await adminRequest(server, "POST", "/api/entities/Project", { orgId: "o1", name: "second" });
      client.send({ type: "ping" });
      expect(await client.next()).toEqual({ type: "pong" });
    });

    it("bounds a user's open live connections (SVC_LIVE_MAX_CONNECTIONS_PER_USER)", async () => {
      await open(alice.token);
      await open(alice.token);
      const { status: sse, stream } = await openEvents(
        server.url,
        "/events?entity=Task",
        alice.token,
      );
      streams.push(stream);
      expect(sse).toBe(200);
      const refused = await attemptWs(server, { token: alice.token });
      if (!("client" in refused)) throw new Error(`refused with ${refused.status}`);
      clients.push(refused.client);
      expect(await closedWithin(refused.client, 1000)).toEqual({
        code: 1013,
        reason: "TOO_MANY_CONNECTIONS",
      });
      const events = await openEvents(server.url, "/events?entity=Task", alice.token);
      expect(events.status).toBe(429);
      expect(events.body).toMatchObject({ error: { code: "TOO_MANY_CONNECTIONS" } });
      // Closing one frees its place.
      stream.close();
      await expect
        .poll(async () => {
          const attempt = await attemptWs(server, { token: alice.token });
          if (!("client" in attempt)) return "refused";
          clients.push(attempt.client);
          const outcome = await Promise.race([
            attempt.client.closed.then(() => "closed"),
            new Promise((resolve) => setTimeout(() => resolve("open"), 200)),
          ]);
          return outcome;
        })
        .toBe("open");
    });

    it("gives no place in the bounds to a WebSocket handshake that failed", async () => {
      const { hostname, port } = new URL(server.url);
      for (let i = 0; i < 4; i++) {
        // A bad Sec-WebSocket-Key: ws refuses the handshake with 400 after the caller resolved.
        const answer = await new Promise<string>((resolve, reject) => {
          const socket = connect({ host: hostname, port: Number(port) }, () => {
            socket.write(
              `GET /ws HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: bad\r\nAuthorization: Bearer ${alice.token}\r\n\r\n`,
            );
          });
          let text = "";
          socket.on("data", (chunk) => {
            text += chunk.toString();
          });
          socket.on("close", () => resolve(text));
          socket.on("error", reject);
        });
        expect(answer).toMatch(/^HTTP\/1\.1 400/);
      }
      const client = await open(alice.token);
      client.send({ type: "ping" });
      expect(await client.next()).toEqual({ type: "pong" });
    });

    it("answers /events for an entity with no read policy 403 POLICY_DENIED, as /ws does", async () => {
      const events = await openEvents(server.url, "/events?entity=Secret", alice.token);
      expect(events.status).toBe(403);
      expect(events.body).toMatchObject({ error: { code: "POLICY_DENIED" } });
      const admin = await openEvents(server.url, "/events?entity=Secret", ADMIN_TOKEN);
      expect(admin.status).toBe(200);
      streams.push(admin.stream);
    });
  },
);

const postgres = postgresTestDatabase();

describe.skipIf(postgres === undefined)(
  "revocation across two server processes on Postgres",
  () => {
    it("a sign-out through one server closes the user's socket on the other within a second", async () => {
      if (postgres === undefined) return;
      await using db = await createTestDatabase(postgres);
      using dir = tempDir();
      const env = {
        ...SPAWN_BASE_ENV,
        ...databaseEnv(db.target),
        SVC_MANIFEST: writeApp(dir.path),
        SVC_RATE_LIMIT: "off",
      };
      const first = spawnServer(env);
      const second = spawnServer(env);
      try {
        const [urlA, urlB] = await Promise.all([first.ready, second.ready]);
        const a = { url: urlA as string };
        const b = { url: urlB as string };
        const alice = await registerPassword(a, "alice@example.com");
        const client = await connectWs(b, { token: alice.token });
        client.send({ type: "subscribe", id: "t", entity: "Task" });
        expect((await client.next()).type).toBe("snapshot");
        const signedOut = await request(a, "DELETE", "/api/auth/session", { token: alice.token });
        expect(signedOut.status).toBe(200);
        expect(await closedWithin(client, 1000)).toEqual({
          code: 1008,
          reason: "credential revoked",
        });
      } finally {
        await killAll([first, second]);
      }
    });
  },
);
