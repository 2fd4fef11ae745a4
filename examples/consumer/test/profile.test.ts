import { createClient, SvcError } from "@svc/client";
import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  call,
  callFunction,
  errorCode,
  signInWithCode,
  startApp,
  type TestApp,
} from "./fixtures.js";

describe.each(testDatabases())("sign-in and profiles on $name", (database) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(database);
  });

  afterAll(async () => {
    await app?.[Symbol.asyncDispose]();
  });

  it("signs in by password through the client, and by magic code", async () => {
    const client = createClient({ url: app.url });
    const registered = await client.auth.register("grace@example.com", "a long enough password");
    expect(registered.token).toMatch(/^svc_/);
    await client.auth.signOut();
    expect(await client.token()).toBeNull();

    await expect(client.auth.login("grace@example.com", "wrong password")).rejects.toMatchObject({
      code: "INVALID_CREDENTIALS",
    });
    await client.auth.login("grace@example.com", "a long enough password");
    expect((await client.auth.me()).user?.email).toBe("grace@example.com");

    const token = await signInWithCode(app, "ada@example.com");
    const me = await call(app, "GET", "/api/auth/me", { token });
    expect((me.body as { user: { email: string } }).user.email).toBe("ada@example.com");
  });

  it("creates the profile on the first save and updates the same row afterwards", async () => {
    const token = await signInWithCode(app, "first-save@example.com");
    expect((await callFunction(app, token, "myProfile")).body).toBeNull();

    const created = await callFunction(app, token, "saveProfile", {
      displayName: " Ada ",
      bio: "Maths",
    });
    expect(created.body).toMatchObject({ displayName: "Ada", bio: "Maths", created: true });
    const updated = await callFunction(app, token, "saveProfile", { displayName: "Ada L." });
    expect(updated.body).toMatchObject({ displayName: "Ada L.", bio: null, created: false });
    expect((updated.body as { id: string }).id).toBe((created.body as { id: string }).id);

    expect((await callFunction(app, token, "myProfile")).body).toMatchObject({
      displayName: "Ada L.",
      bio: null,
    });
    const rejected = await callFunction(app, token, "saveProfile", { displayName: "   " });
    expect(rejected.status).toBe(400);
    expect(errorCode(rejected)).toBe("INVALID_ARGS");
  });

  it("lets nobody but the owner edit a profile", async () => {
    const alice = await signInWithCode(app, "alice-profile@example.com");
    const mallory = await signInWithCode(app, "mallory-profile@example.com");
    const saved = await callFunction(app, alice, "saveProfile", { displayName: "Alice" });
    const aliceProfileId = (saved.body as { id: string }).id;

    // Signed-in users may read profiles (names in organizations) but not change them.
    const read = await call(app, "GET", `/api/entities/Profile/${aliceProfileId}`, {
      token: mallory,
    });
    expect(read.status).toBe(200);
    const patch = await call(app, "PATCH", `/api/entities/Profile/${aliceProfileId}`, {
      token: mallory,
      body: { displayName: "Hacked" },
    });
    expect(patch.status).toBe(403);
    expect(errorCode(patch)).toBe("POLICY_DENIED");
    const remove = await call(app, "DELETE", `/api/entities/Profile/${aliceProfileId}`, {
      token: mallory,
    });
    expect(remove.status).toBe(403);

    // A second profile for Alice, written by someone else, is refused too.
    const forged = await call(app, "POST", "/api/entities/Profile", {
      token: mallory,
      body: { ownerId: "a".repeat(40), displayName: "Not me" },
    });
    expect(forged.status).toBe(403);
    expect(errorCode(forged)).toBe("OWNER_MISMATCH");

    // Mallory's own save makes Mallory's profile; Alice's is untouched.
    await callFunction(app, mallory, "saveProfile", { displayName: "Mallory" });
    expect((await callFunction(app, alice, "myProfile")).body).toMatchObject({
      displayName: "Alice",
    });
    const list = await call(app, "GET", "/api/entities/Profile", { token: mallory });
    const names = (list.body as { displayName: string }[]).map((row) => row.displayName);
    expect(names).toContain("Alice");
    expect(names).not.toContain("Hacked");
  });

  it("shows profiles to signed-in users only, not to guests or anonymous callers", async () => {
    const token = await signInWithCode(app, "visible@example.com");
    const saved = await callFunction(app, token, "saveProfile", { displayName: "Visible" });
    const id = (saved.body as { id: string }).id;
    const guest = ((await call(app, "POST", "/api/auth/guest")).body as { token: string }).token;
    expect((await call(app, "GET", `/api/entities/Profile/${id}`, { token: guest })).status).toBe(
      404,
    );
    expect((await call(app, "GET", "/api/entities/Profile", { token: guest })).body).toEqual([]);
    expect((await call(app, "GET", `/api/entities/Profile/${id}`)).status).toBe(404);
  });

  it("keeps one profile per user even when written through the entity API", async () => {
    const token = await signInWithCode(app, "twice@example.com");
    const first = await call(app, "POST", "/api/entities/Profile", {
      token,
      body: { displayName: "One" },
    });
    expect(first.status).toBe(201);
    const second = await call(app, "POST", "/api/entities/Profile", {
      token,
      body: { displayName: "Two" },
    });
    expect(second.status).toBe(409);
  });

  it("deletes the account with its profile, and refuses the token afterwards", async () => {
    const client = createClient({ url: app.url });
    await client.auth.register("leaving@example.com", "a long enough password");
    await client.fn("saveProfile", { displayName: "Leaving" });
    const profileId = ((await client.fn("myProfile")) as { id: string }).id;
    const token = await client.token();

    await client.auth.deleteAccount();
    expect(await client.token()).toBeNull();
    const after = await call(app, "GET", "/api/auth/me", { token: token ?? "" });
    expect(after.status).toBe(401);

    const other = await signInWithCode(app, "observer@example.com");
    const profile = await call(app, "GET", `/api/entities/Profile/${profileId}`, { token: other });
    expect(profile.status).toBe(404);
    await expect(client.fn("myProfile")).rejects.toBeInstanceOf(SvcError);
  });
});
