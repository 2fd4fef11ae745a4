import { createClient, type Room } from "@svc/client";
import { testDatabases } from "@svc/tooling/databases";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  adminList,
  type ChatServer,
  type ChatUser,
  call,
  createDatabase,
  request,
  signIn,
  startChat,
} from "./chat-server.js";

// The chat against the real server on every database: display names,
// channels, messages and the `channel` room, through the HTTP API and the
// client as the front end uses them, with the manifest's policies holding
// for whoever tries the entity API directly.

interface ErrorBody {
  error: { code: string; message: string };
}

interface MessageRow {
  id: string;
  channelId: string;
  authorId: string;
  text: string;
  createdAt: string;
}

interface MessagePage {
  rows: MessageRow[];
  nextCursor: string | null;
}

describe.each(testDatabases())("the chat on $name", (database) => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let server: ChatServer;
  let emails = 0;
  let channels = 0;
  const newUser = () => signIn(server, `chatter-${++emails}@example.com`);
  const freshName = () => `room-${++channels}`;
  const rooms: Room[] = [];

  async function newChannel(user: ChatUser, name = freshName()): Promise<string> {
    const created = await call<{ id: string }>(server, user.token, "createChannel", { name });
    expect(created.status).toBe(200);
    return created.body.id;
  }

  const entities = <T>(
    user: ChatUser | undefined,
    path: string,
    init: { method?: string; body?: unknown } = {},
  ) =>
    request<T>(server, init.method ?? "GET", `/api/entities/${path}`, {
      token: user?.token,
      body: init.body,
    });

  beforeAll(async () => {
    db = await createDatabase(database);
    server = await startChat(db.target);
  });

  afterAll(async () => {
    await server?.[Symbol.asyncDispose]();
    await db?.[Symbol.asyncDispose]();
  });

  afterEach(() => {
    for (const room of rooms.splice(0)) room.close();
    expect(server.internalErrors).toEqual([]);
  });

  describe("display names", () => {
    it("creates the caller's profile once and renames it in place", async () => {
      const ada = await newUser();
      const first = await call(server, ada.token, "setDisplayName", { displayName: "  Ada  " });
      expect(first).toMatchObject({ status: 200, body: { displayName: "Ada" } });
      const second = await call(server, ada.token, "setDisplayName", { displayName: "Ada L." });
      expect(second).toEqual({ status: 200, body: { id: first.body.id, displayName: "Ada L." } });

      const mine = (await adminList(server, "Profile")).filter((row) => row.userId === ada.userId);
      expect(mine).toEqual([{ id: first.body.id, userId: ada.userId, displayName: "Ada L." }]);
    });

    it.each([
      ["empty", ""],
      ["blank", "   "],
      ["41 characters", "x".repeat(41)],
    ])("refuses a %s name with 400 INVALID_ARGS", async (_case, displayName) => {
      const user = await newUser();
      const answer = await call<ErrorBody>(server, user.token, "setDisplayName", { displayName });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe("INVALID_ARGS");
    });

    it("needs a signed-in caller", async () => {
      const answer = await call<ErrorBody>(server, undefined, "setDisplayName", {
        displayName: "Nobody",
      });
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe("AUTH_REQUIRED");
    });

    it("shows every profile to signed-in users and none to anonymous callers", async () => {
      const ada = await newUser();
      const bob = await newUser();
      await call(server, ada.token, "setDisplayName", { displayName: "Ada" });
      const seen = await entities<{ userId: string; displayName: string }[]>(
        bob,
        "Profile?limit=1000",
      );
      expect(seen.status).toBe(200);
      expect(seen.body).toContainEqual(
        expect.objectContaining({ userId: ada.userId, displayName: "Ada" }),
      );

      const anonymous = await entities<unknown[]>(undefined, "Profile?limit=1000");
      expect(anonymous).toEqual({ status: 200, body: [] });
    });

    it("lets no one write another user's profile", async () => {
      const ada = await newUser();
      const eve = await newUser();
      const profile = await call<{ id: string }>(server, ada.token, "setDisplayName", {
        displayName: "Ada",
      });
      const id = profile.body.id;

      const renamed = await entities<ErrorBody>(eve, `Profile/${id}`, {
        method: "PATCH",
        body: { displayName: "Eve was here" },
      });
      expect(renamed.status).toBe(403);
      const deleted = await entities<ErrorBody>(eve, `Profile/${id}`, { method: "DELETE" });
      expect(deleted.status).toBe(403);
      const forged = await entities<ErrorBody>(eve, "Profile", {
        method: "POST",
        body: { userId: ada.userId, displayName: "Ada (really Eve)" },
      });
      expect(forged.status).toBe(403);
      expect(forged.body.error.code).toBe("OWNER_MISMATCH");

      const mine = (await adminList(server, "Profile")).filter((row) => row.userId === ada.userId);
      expect(mine).toEqual([{ id, userId: ada.userId, displayName: "Ada" }]);
    });
  });

  describe("channels", () => {
    it("creates a channel under its normalised name and refuses a taken name", async () => {
      const ada = await newUser();
      const bob = await newUser();
      const name = freshName();
      const created = await call(server, ada.token, "createChannel", {
        name: `  ${name.toUpperCase()} `,
      });
      expect(created).toEqual({ status: 200, body: { id: expect.any(String), name } });

      const again = await call<ErrorBody>(server, bob.token, "createChannel", { name });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("CHANNEL_EXISTS");

      const rows = (await adminList(server, "Channel")).filter((row) => row.name === name);
      expect(rows).toEqual([
        { id: created.body.id, name, createdBy: ada.userId, createdAt: expect.any(String) },
      ]);
    });

    it.each([
      ["a leading dash", "-news"],
      ["a trailing dash", "news-"],
      ["a double dash", "release--notes"],
      ["a space", "release notes"],
      ["an underscore", "release_notes"],
      ["41 characters", "x".repeat(41)],
      ["nothing", ""],
    ])("refuses a name with %s with 400 INVALID_ARGS", async (_case, name) => {
      const user = await newUser();
      const answer = await call<ErrorBody>(server, user.token, "createChannel", { name });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe("INVALID_ARGS");
    });

    // Regression: on Postgres both callers passed the name check and the
    // loser got the store's UNIQUE_VIOLATION instead of CHANNEL_EXISTS.
    it("creates one channel when two users race for a name", async () => {
      const [ada, bob] = await Promise.all([newUser(), newUser()]);
      const name = freshName();
      const answers = await Promise.all([
        call<ErrorBody>(server, ada.token, "createChannel", { name }),
        call<ErrorBody>(server, bob.token, "createChannel", { name }),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      const refused = answers.find((answer) => answer.status === 409);
      expect(refused?.body.error.code).toBe("CHANNEL_EXISTS");
      expect((await adminList(server, "Channel")).filter((row) => row.name === name)).toHaveLength(
        1,
      );
    });

    it("shows channels to signed-in users only, and nobody renames, deletes or forges one", async () => {
      const ada = await newUser();
      const bob = await newUser();
      const id = await newChannel(ada);

      const seen = await entities<{ id: string }[]>(bob, "Channel?limit=1000");
      expect(seen.body.map((row) => row.id)).toContain(id);
      expect(await entities(undefined, "Channel?limit=1000")).toEqual({ status: 200, body: [] });

      for (const user of [ada, bob]) {
        const renamed = await entities(user, `Channel/${id}`, {
          method: "PATCH",
          body: { name: "renamed" },
        });
        expect(renamed.status).toBe(403);
        const deleted = await entities(user, `Channel/${id}`, { method: "DELETE" });
        expect(deleted.status).toBe(403);
      }
      const forged = await entities<ErrorBody>(bob, "Channel", {
        method: "POST",
        body: { name: freshName(), createdBy: ada.userId },
      });
      expect(forged.status).toBe(403);
      expect(forged.body.error.code).toBe("OWNER_MISMATCH");
    });
  });

  describe("messages", () => {
    it("posts as the caller and pages through a channel's messages, newest first", async () => {
      const ada = await newUser();
      const bob = await newUser();
      const channelId = await newChannel(ada);
      const elsewhere = await newChannel(ada);
      const texts = ["one", "two", "three", "four", "five"];
      for (const text of texts) {
        const sent = await call(server, ada.token, "sendMessage", { channelId, text });
        expect(sent).toEqual({
          status: 200,
          body: { id: expect.any(String), createdAt: expect.any(String) },
        });
      }
      await call(server, bob.token, "sendMessage", { channelId: elsewhere, text: "not here" });

      const seen: MessageRow[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 3; page += 1) {
        const answer: { status: number; body: MessagePage } = await call<MessagePage>(
          server,
          bob.token,
          "listMessages",
          { channelId, limit: 2, ...(cursor !== null && { cursor }) },
        );
        expect(answer.status).toBe(200);
        expect(answer.body.rows.length).toBe(page < 2 ? 2 : 1);
        seen.push(...answer.body.rows);
        cursor = answer.body.nextCursor;
      }
      expect(cursor).toBeNull();
      expect(seen.map((row) => row.text).sort()).toEqual([...texts].sort());
      expect(new Set(seen.map((row) => row.id)).size).toBe(texts.length);
      for (const row of seen) expect(row).toMatchObject({ channelId, authorId: ada.userId });
      const times = seen.map((row) => row.createdAt);
      expect(times).toEqual([...times].sort().reverse());
    });

    it("trims the text and refuses an empty or too long one", async () => {
      const ada = await newUser();
      const channelId = await newChannel(ada);
      const sent = await call<{ id: string }>(server, ada.token, "sendMessage", {
        channelId,
        text: "  hello  ",
      });
      expect(sent.status).toBe(200);
      const page = await call<MessagePage>(server, ada.token, "listMessages", { channelId });
      expect(page.body.rows.map((row) => row.text)).toEqual(["hello"]);

      for (const text of ["", "   ", "x".repeat(2001)]) {
        const refused = await call<ErrorBody>(server, ada.token, "sendMessage", {
          channelId,
          text,
        });
        expect(refused.status).toBe(400);
        expect(refused.body.error.code).toBe("INVALID_ARGS");
      }
      const longest = await call(server, ada.token, "sendMessage", {
        channelId,
        text: "x".repeat(2000),
      });
      expect(longest.status).toBe(200);
    });

    it("refuses a message to a channel that does not exist, by function and by entity API", async () => {
      const ada = await newUser();
      const missing = "0".repeat(40);
      const answer = await call<ErrorBody>(server, ada.token, "sendMessage", {
        channelId: missing,
        text: "anyone?",
      });
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe("CHANNEL_NOT_FOUND");
      const direct = await entities<ErrorBody>(ada, "Message", {
        method: "POST",
        body: { channelId: missing, text: "anyone?" },
      });
      expect(direct.status).toBe(403);
      expect(direct.body.error.code).toBe("POLICY_DENIED");
      const stored = await adminList(server, "Message");
      expect(stored.filter((row) => row.channelId === missing)).toEqual([]);
    });

    it("needs a signed-in caller to send or read", async () => {
      const ada = await newUser();
      const channelId = await newChannel(ada);
      await call(server, ada.token, "sendMessage", { channelId, text: "members only" });
      for (const [name, args] of [
        ["sendMessage", { channelId, text: "hi" }],
        ["listMessages", { channelId }],
      ] as const) {
        const answer = await call<ErrorBody>(server, undefined, name, args);
        expect(answer.status).toBe(401);
        expect(answer.body.error.code).toBe("AUTH_REQUIRED");
      }
      expect(await entities(undefined, "Message?limit=1000")).toEqual({ status: 200, body: [] });
    });

    it("lets authors edit and delete their own messages, and no one else's", async () => {
      const ada = await newUser();
      const eve = await newUser();
      const channelId = await newChannel(ada);
      const sent = await call<{ id: string }>(server, ada.token, "sendMessage", {
        channelId,
        text: "draft",
      });
      const id = sent.body.id;

      const forged = await entities<ErrorBody>(eve, "Message", {
        method: "POST",
        body: { channelId, authorId: ada.userId, text: "signed, Ada" },
      });
      expect(forged.status).toBe(403);
      expect(forged.body.error.code).toBe("OWNER_MISMATCH");
      expect(
        (await entities(eve, `Message/${id}`, { method: "PATCH", body: { text: "Eve edit" } }))
          .status,
      ).toBe(403);
      expect((await entities(eve, `Message/${id}`, { method: "DELETE" })).status).toBe(403);

      const edited = await entities(ada, `Message/${id}`, {
        method: "PATCH",
        body: { text: "final" },
      });
      expect(edited).toMatchObject({ status: 200, body: { id, text: "final" } });
      expect((await entities(ada, `Message/${id}`, { method: "DELETE" })).status).toBe(200);
      const page = await call<MessagePage>(server, eve.token, "listMessages", { channelId });
      expect(page.body.rows).toEqual([]);
    });
  });

  describe("the channel room", () => {
    const join = (user: ChatUser | undefined, key: string, name?: string) => {
      const client = createClient({
        url: server.url,
        ...(user !== undefined && { token: user.token }),
      });
      const room = client.room<{ name: string }>(
        "channel",
        key,
        name === undefined ? {} : { presence: { name } },
      );
      rooms.push(room);
      return room;
    };
    const names = (room: Room<{ name: string }>) =>
      room.members.map((member) => member.presence?.name ?? null).sort();

    it("shows who has a channel open with their presence, and drops those who leave", async () => {
      const ada = await newUser();
      const bob = await newUser();
      const channelId = await newChannel(ada);
      const other = await newChannel(ada);

      const adaRoom = join(ada, channelId, "Ada");
      await adaRoom.ready;
      const bobRoom = join(bob, channelId, "Bob");
      await bobRoom.ready;
      const elsewhere = join(bob, other, "Bob elsewhere");
      await elsewhere.ready;

      await expect.poll(() => names(adaRoom)).toEqual(["Ada", "Bob"]);
      await expect.poll(() => names(bobRoom)).toEqual(["Ada", "Bob"]);
      expect(adaRoom.members.map((member) => member.userId).sort()).toEqual(
        [ada.userId, bob.userId].sort(),
      );

      bobRoom.setPresence({ name: "Bob B." });
      await expect.poll(() => names(adaRoom)).toEqual(["Ada", "Bob B."]);

      bobRoom.close();
      await expect.poll(() => names(adaRoom)).toEqual(["Ada"]);
      expect(names(elsewhere)).toEqual(["Bob elsewhere"]);
    });

    it("refuses a channel that does not exist, and callers who are not signed in", async () => {
      const ada = await newUser();
      const channelId = await newChannel(ada);
      await expect(join(ada, "0".repeat(40), "Ada").ready).rejects.toMatchObject({
        code: "JOIN_DENIED",
      });
      const anonymous = join(undefined, channelId);
      await expect(anonymous.ready).rejects.toMatchObject({ code: "AUTH_REQUIRED" });
      expect(anonymous.status).toBe("refused");
    });
  });
});
