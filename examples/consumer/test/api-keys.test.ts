import { createClient, SvcError } from "@svc/client";
import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, callFunction, errorCode, startApp, type TestApp } from "./fixtures.js";

describe.each(testDatabases())("API keys on $name", (database) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(database);
  });

  afterAll(async () => {
    await app?.[Symbol.asyncDispose]();
  });

  it("creates a key shown once, lists it without its secret, uses it and revokes it", async () => {
    const owner = createClient({ url: app.url });
    await owner.auth.register("keys@example.com", "a long enough password");
    await owner.fn("saveProfile", { displayName: "Key owner" });

    const created = await owner.apiKeys.create({ name: "  nightly export " });
    expect(created.key).toMatch(/^pk\.key_[a-z0-9]{24}\.[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ name: "nightly export", prefix: created.key.slice(0, 16) });
    const secret = created.key.split(".")[2] ?? "";

    const listed = await owner.apiKeys.list();
    expect(listed.map((key) => key.id)).toEqual([created.id]);
    expect(listed[0]).not.toHaveProperty("key");
    expect(JSON.stringify(listed)).not.toContain(secret);

    // The key calls functions as its owner.
    const script = createClient({ url: app.url, token: created.key });
    expect(await script.fn("myProfile")).toMatchObject({ displayName: "Key owner" });
    const me = await call(app, "GET", "/api/auth/me", { token: created.key });
    expect(me.body).toMatchObject({ via: "api-key", user: { email: "keys@example.com" } });

    // A key cannot manage keys or delete the account.
    await expect(script.apiKeys.create({ name: "more" })).rejects.toMatchObject({
      code: "API_KEY_AUTH_FORBIDDEN",
      status: 403,
    });
    const deletion = await call(app, "DELETE", "/api/auth/account", { token: created.key });
    expect(errorCode(deletion)).toBe("API_KEY_AUTH_FORBIDDEN");

    expect(await owner.apiKeys.revoke(created.id)).toEqual({ revoked: true });
    const refused = await script.fn("myProfile").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SvcError);
    expect(refused).toMatchObject({ code: "INVALID_API_KEY", status: 401 });
    expect(await owner.apiKeys.list()).toEqual([]);
  });

  it("carries no organization: org-scoped projects stay hidden from a key", async () => {
    const owner = createClient({ url: app.url });
    await owner.auth.register("org-keys@example.com", "a long enough password");
    const org = (await owner.fn("createOrganization", { name: "Keyed" })) as { id: string };
    await owner.auth.selectOrg(org.id);
    await owner.fn("createProject", { name: "Seen by sessions" });
    const { key } = await owner.apiKeys.create({ name: "ci" });

    const viaKey = await callFunction(app, key, "listProjects");
    expect(viaKey.body).toEqual({ orgId: null, projects: [] });
    const viaSession = (await owner.fn("listProjects")) as { projects: unknown[] };
    expect(viaSession.projects).toHaveLength(1);
  });

  it("revokes only the caller's own keys", async () => {
    const alice = createClient({ url: app.url });
    await alice.auth.register("alice-keys@example.com", "a long enough password");
    const bob = createClient({ url: app.url });
    await bob.auth.register("bob-keys@example.com", "a long enough password");
    const alicesKey = await alice.apiKeys.create({ name: "alice's" });

    await expect(bob.apiKeys.revoke(alicesKey.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await bob.apiKeys.list()).toEqual([]);
    const stillWorks = await callFunction(app, alicesKey.key, "myOrganizations");
    expect(stillWorks.status).toBe(200);
  });
});
