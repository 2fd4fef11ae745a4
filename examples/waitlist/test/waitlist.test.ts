import { createClient } from "@svc/client";
import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  type Answer,
  call,
  callFunction,
  errorCode,
  signInWithCode,
  startApp,
  type TestApp,
} from "./fixtures.js";

// The waitlist against the real server on every database: joining with a
// magic code, the admin view, and what the entity API lets people do.

interface Entry {
  id: string;
  email: string;
  note: string | null;
  status: "waiting" | "invited";
  position: number;
  createdAt: string;
  invitedAt: string | null;
}

interface Me {
  email: string | null;
  emailVerified: boolean;
  entry: Entry | null;
  isAdmin: boolean;
}

interface Joined {
  joined: boolean;
  entry: Entry;
}

interface EntryPage {
  entries: Entry[];
  nextCursor: string | null;
}

function body<T>(answer: Answer): T {
  return answer.body as T;
}

describe.each(testDatabases())("the waitlist on $name", (database) => {
  let app: TestApp;
  let emails = 0;
  const nextEmail = () => `person-${++emails}@example.com`;
  const newUser = () => signInWithCode(app, nextEmail());

  /** Signs a new user in by magic code and grants them admin rights with the admin token. */
  async function newAdmin(): Promise<string> {
    const email = nextEmail();
    const token = await signInWithCode(app, email);
    const granted = await callFunction(app, ADMIN_TOKEN, "grantAdmin", { email });
    expect(granted.status).toBe(200);
    return token;
  }

  async function join(token: string, note?: string): Promise<Entry> {
    const answer = await callFunction(
      app,
      token,
      "joinWaitlist",
      note === undefined ? {} : { note },
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return body<Joined>(answer).entry;
  }

  beforeAll(async () => {
    app = await startApp(database);
  });

  afterAll(async () => {
    await app?.[Symbol.asyncDispose]();
  });

  it("puts people in line in the order they join, once each", async () => {
    const ada = await newUser();
    const before = body<Me>(await callFunction(app, ada, "me"));
    expect(before).toMatchObject({ emailVerified: true, entry: null, isAdmin: false });
    expect(before.email).toMatch(/^person-\d+@example\.com$/);

    const joined = await callFunction(app, ada, "joinWaitlist", { note: "  I make teapots  " });
    expect(joined.status).toBe(200);
    const first = body<Joined>(joined);
    expect(first.joined).toBe(true);
    expect(first.entry).toMatchObject({
      email: before.email,
      note: "I make teapots",
      status: "waiting",
      invitedAt: null,
    });

    const bob = await newUser();
    const second = await join(bob);
    expect(second.note).toBeNull();
    expect(second.position).toBeGreaterThan(first.entry.position);

    const again = body<Joined>(await callFunction(app, ada, "joinWaitlist", { note: "twice" }));
    expect(again).toEqual({ joined: false, entry: first.entry });
    expect(body<Me>(await callFunction(app, ada, "me")).entry).toEqual(first.entry);
  });

  it("gives people who join at the same moment distinct places", async () => {
    const tokens = await Promise.all(Array.from({ length: 6 }, () => newUser()));
    const entries = await Promise.all(tokens.map((token) => join(token)));
    const positions = entries.map((entry) => entry.position).sort((a, b) => a - b);
    expect(new Set(positions).size).toBe(6);
    const lowest = positions[0] ?? 0;
    expect(positions).toEqual([0, 1, 2, 3, 4, 5].map((step) => lowest + step));

    // One person joining twice at once still gets one place.
    const eager = await newUser();
    const both = await Promise.all([join(eager), join(eager)]);
    expect(both[0]).toEqual(both[1]);
    expect(both[0]?.position).toBe((positions.at(-1) ?? 0) + 1);
  });

  it("lets only verified addresses join", async () => {
    const client = createClient({ url: app.url });
    await client.auth.register("squatter@example.com", "a long enough password");
    const token = (await client.token()) ?? "";
    expect(body<Me>(await callFunction(app, token, "me"))).toMatchObject({
      email: "squatter@example.com",
      emailVerified: false,
    });
    const refused = await callFunction(app, token, "joinWaitlist", {});
    expect(refused.status).toBe(403);
    expect(errorCode(refused)).toBe("EMAIL_NOT_VERIFIED");
    expect(body<Me>(await callFunction(app, token, "me")).entry).toBeNull();
    const listed = await call(app, "GET", "/api/entities/JoinRequest", { token });
    expect(listed.body).toEqual([]);

    // Proving the address (a code to it) opens the door.
    const sent = await client.auth.sendVerification();
    await client.auth.verifyEmail(sent.dev_code ?? "");
    expect((await join(token)).email).toBe("squatter@example.com");
  });

  it("keeps entries closed to their owners' own edits and to everyone else", async () => {
    const ada = await newUser();
    const eve = await newUser();
    const adas = await join(ada);
    const eves = await join(eve);

    const forged = await call(app, "POST", "/api/entities/WaitlistEntry", {
      token: eve,
      body: { email: "eve@example.com", status: "invited", position: 0 },
    });
    expect(forged.status).toBe(403);
    const jump = await call(app, "PATCH", `/api/entities/WaitlistEntry/${eves.id}`, {
      token: eve,
      body: { position: 0 },
    });
    expect(jump.status).toBe(403);
    const selfInvite = await call(app, "PATCH", `/api/entities/WaitlistEntry/${eves.id}`, {
      token: eve,
      body: { status: "invited" },
    });
    expect(selfInvite.status).toBe(403);
    const peek = await call(app, "GET", `/api/entities/WaitlistEntry/${adas.id}`, { token: eve });
    expect(peek.status).toBe(404);
    const all = await call(app, "GET", "/api/entities/WaitlistEntry?limit=1000", { token: eve });
    expect(body<Entry[]>(all).map((row) => row.id)).toEqual([eves.id]);
    const selfAdmin = await call(app, "POST", "/api/entities/Admin", {
      token: eve,
      body: { userId: "x" },
    });
    expect(selfAdmin.status).toBe(403);
    expect(body<Me>(await callFunction(app, eve, "me")).isAdmin).toBe(false);
  });

  it("joins through the entity API the same way, and checks the note there too", async () => {
    const token = await newUser();
    const tooLong = await call(app, "POST", "/api/entities/JoinRequest", {
      token,
      body: { note: "x".repeat(281) },
    });
    expect(tooLong.status).toBe(201);
    const refused = await call(
      app,
      "DELETE",
      `/api/entities/JoinRequest/${body<{ id: string }>(tooLong).id}`,
      { token },
    );
    expect(refused.status).toBe(400);
    expect(errorCode(refused)).toBe("NOTE_TOO_LONG");
    expect(body<Me>(await callFunction(app, token, "me")).entry).toBeNull();
    const viaFunction = await callFunction(app, token, "joinWaitlist", { note: "x".repeat(281) });
    expect(errorCode(viaFunction)).toBe("INVALID_ARGS");

    const filed = await call(app, "POST", "/api/entities/JoinRequest", {
      token,
      body: { note: "by hand" },
    });
    const removed = await call(
      app,
      "DELETE",
      `/api/entities/JoinRequest/${body<{ id: string }>(filed).id}`,
      { token },
    );
    expect(removed.status).toBe(200);
    expect(body<Me>(await callFunction(app, token, "me")).entry).toMatchObject({
      note: "by hand",
      status: "waiting",
    });
    // The admin token clearing a stray request puts nobody on the list.
    const stray = await newUser();
    const request = await call(app, "POST", "/api/entities/JoinRequest", {
      token: stray,
      body: {},
    });
    await call(app, "DELETE", `/api/entities/JoinRequest/${body<{ id: string }>(request).id}`, {
      token: ADMIN_TOKEN,
    });
    expect(body<Me>(await callFunction(app, stray, "me")).entry).toBeNull();
  });

  it("keeps the admin view to admins", async () => {
    const person = await newUser();
    await join(person);
    const list = await callFunction(app, person, "listEntries");
    expect(list.status).toBe(403);
    expect(errorCode(list)).toBe("ADMIN_REQUIRED");
    const entry = body<Me>(await callFunction(app, person, "me")).entry;
    const invite = await callFunction(app, person, "invite", { id: entry?.id });
    expect(errorCode(invite)).toBe("ADMIN_REQUIRED");
    const grant = await callFunction(app, person, "grantAdmin", { email: "person-1@example.com" });
    expect(grant.status).toBe(403);
    expect(errorCode(grant)).toBe("ADMIN_TOKEN_REQUIRED");
    const guest = body<{ token: string }>(await call(app, "POST", "/api/auth/guest")).token;
    expect(errorCode(await callFunction(app, guest, "listEntries"))).toBe("GUEST_NOT_ALLOWED");
    expect(errorCode(await callFunction(app, guest, "joinWaitlist"))).toBe("GUEST_NOT_ALLOWED");
    expect((await call(app, "POST", "/api/fn/listEntries", { body: {} })).status).toBe(401);
  });

  it("grants admin rights only to a known, verified address", async () => {
    const unknown = await callFunction(app, ADMIN_TOKEN, "grantAdmin", {
      email: "nobody@example.com",
    });
    expect(unknown.status).toBe(404);
    expect(errorCode(unknown)).toBe("USER_NOT_FOUND");

    const client = createClient({ url: app.url });
    await client.auth.register("boss@example.com", "a long enough password");
    const unverified = await callFunction(app, ADMIN_TOKEN, "grantAdmin", {
      email: "boss@example.com",
    });
    expect(errorCode(unverified)).toBe("EMAIL_NOT_VERIFIED");

    const email = nextEmail();
    const token = await signInWithCode(app, email);
    const granted = await callFunction(app, ADMIN_TOKEN, "grantAdmin", {
      email: `  ${email.toUpperCase()} `,
    });
    expect(granted.body).toMatchObject({ email });
    await callFunction(app, ADMIN_TOKEN, "grantAdmin", { email });
    expect(body<Me>(await callFunction(app, token, "me")).isAdmin).toBe(true);
    const rows = await call(app, "GET", "/api/entities/Admin?limit=1000", { token: ADMIN_TOKEN });
    // Granting twice wrote one row.
    const mine = body<{ userId: string }[]>(rows).filter(
      (row) => row.userId === body<{ userId: string }>(granted).userId,
    );
    expect(mine).toHaveLength(1);
  });

  it("shows admins the line in order, one status or page at a time, and invites", async () => {
    const admin = await newAdmin();
    const people = await Promise.all([newUser(), newUser(), newUser()]);
    const entries: Entry[] = [];
    for (const token of people) entries.push(await join(token));

    const everyone: Entry[] = [];
    let cursor: string | null = null;
    do {
      const page: EntryPage = body<EntryPage>(
        await callFunction(app, admin, "listEntries", {
          limit: 2,
          ...(cursor !== null && { cursor }),
        }),
      );
      expect(page.entries.length).toBeLessThanOrEqual(2);
      everyone.push(...page.entries);
      cursor = page.nextCursor;
    } while (cursor !== null);
    const positions = everyone.map((entry) => entry.position);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(everyone.map((entry) => entry.id)).toEqual(
      expect.arrayContaining(entries.map((e) => e.id)),
    );

    const target = entries[1] as Entry;
    const invited = body<Entry>(await callFunction(app, admin, "invite", { id: target.id }));
    expect(invited).toMatchObject({ id: target.id, status: "invited", position: target.position });
    expect(invited.invitedAt).not.toBeNull();
    const twice = body<Entry>(await callFunction(app, admin, "invite", { id: target.id }));
    expect(twice.invitedAt).toBe(invited.invitedAt);

    const waiting = body<EntryPage>(
      await callFunction(app, admin, "listEntries", { status: "waiting", limit: 100 }),
    );
    expect(waiting.entries.map((entry) => entry.id)).not.toContain(target.id);
    expect(waiting.entries.every((entry) => entry.status === "waiting")).toBe(true);
    const invitedPage = body<EntryPage>(
      await callFunction(app, admin, "listEntries", { status: "invited", limit: 100 }),
    );
    expect(invitedPage.entries.map((entry) => entry.id)).toContain(target.id);
    expect(body<Me>(await callFunction(app, people[1] ?? "", "me")).entry?.status).toBe("invited");

    const missing = await callFunction(app, admin, "invite", { id: "f".repeat(40) });
    expect(errorCode(missing)).toBe("ENTRY_NOT_FOUND");
    // Through the entity API an admin may change an entry's status, never its place or address.
    for (const patch of [{ position: 0 }, { email: "someone@else.example" }]) {
      const changed = await call(app, "PATCH", `/api/entities/WaitlistEntry/${target.id}`, {
        token: admin,
        body: patch,
      });
      expect(changed.status, JSON.stringify(patch)).toBe(403);
    }
  });

  it("takes a deleted account off the list and out of the admins", async () => {
    const client = createClient({ url: app.url });
    const email = nextEmail();
    const sent = await client.auth.sendMagicCode(email);
    await client.auth.verifyMagicCode(email, sent.dev_code ?? "");
    const token = (await client.token()) ?? "";
    const entry = await join(token, "leaving soon");
    await callFunction(app, ADMIN_TOKEN, "grantAdmin", { email });
    const userId = (await client.auth.me()).user_id;

    await client.auth.deleteAccount();
    const left = await call(app, "GET", `/api/entities/WaitlistEntry/${entry.id}`, {
      token: ADMIN_TOKEN,
    });
    expect(left.status).toBe(404);
    const admins = await call(app, "GET", "/api/entities/Admin?limit=1000", { token: ADMIN_TOKEN });
    expect(body<{ userId: string }[]>(admins).map((row) => row.userId)).not.toContain(userId);
  });
});
