import type { IncomingMessage } from "node:http";
import { type AuthContext, createAuthContext } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { addressGroup, createLiveCallers, sameCaller } from "./live-callers.js";

function requestFrom(address: string, cookie?: string): IncomingMessage {
  return {
    headers: { ...(cookie !== undefined && { cookie }) },
    socket: { remoteAddress: address },
  } as unknown as IncomingMessage;
}

/** A handle that records what the registry told it. */
function recorder() {
  const seen: string[] = [];
  return {
    seen,
    handle: {
      revoked: () => seen.push("revoked"),
      changed: (auth: AuthContext) => seen.push(`changed:${auth.tenantId}`),
    },
  };
}

describe("addressGroup", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8:1:2::9", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
  ])("%s counts in %s", (address, group) => {
    expect(addressGroup(address)).toBe(group);
  });

  it("has no group without an address", () => {
    expect(addressGroup(undefined)).toBeUndefined();
    expect(addressGroup("")).toBeUndefined();
  });
});

describe("sameCaller", () => {
  const base = createAuthContext({ userId: "u1", via: "session", sessionId: "s1" });
  it("ignores the order of roles and entitlements", () => {
    expect(
      sameCaller(
        createAuthContext({ ...base, roles: ["a", "b"] }),
        createAuthContext({ ...base, roles: ["b", "a"] }),
      ),
    ).toBe(true);
  });
  it.each([
    ["tenantId", { tenantId: "o1" }],
    ["roles", { roles: ["admin"] }],
    ["entitlements", { entitlements: ["pro"] }],
    ["sessionId", { sessionId: "s2" }],
  ])("tells a changed %s apart", (_name, change) => {
    expect(sameCaller(base, createAuthContext({ ...base, ...change }))).toBe(false);
  });
});

describe("createLiveCallers", () => {
  const alice = createAuthContext({ userId: "alice", via: "session", sessionId: "s1" });

  it("refuses a user's connection past maxPerUser, and frees the place on release", () => {
    const callers = createLiveCallers({
      authenticate: { resolvers: [() => alice] },
      maxPerUser: 2,
      recheckIntervalMs: 0,
    });
    const first = callers.admit(
      { auth: alice, req: requestFrom("10.0.0.1"), bearer: "t" },
      recorder().handle,
    );
    const second = callers.admit(
      { auth: alice, req: requestFrom("10.0.0.2"), bearer: "t" },
      recorder().handle,
    );
    expect(typeof first).toBe("function");
    expect(typeof second).toBe("function");
    expect(
      callers.admit({ auth: alice, req: requestFrom("10.0.0.3"), bearer: "t" }, recorder().handle),
    ).toBe("TOO_MANY_CONNECTIONS");
    if (typeof first === "function") first();
    expect(
      typeof callers.admit(
        { auth: alice, req: requestFrom("10.0.0.3"), bearer: "t" },
        recorder().handle,
      ),
    ).toBe("function");
  });

  it("counts an IPv6 /64 as one address, and never bounds the admin token", () => {
    const callers = createLiveCallers({
      authenticate: { resolvers: [] },
      maxPerIp: 1,
      recheckIntervalMs: 0,
    });
    const bob = createAuthContext({ userId: "bob", via: "session", sessionId: "s2" });
    expect(
      typeof callers.admit(
        { auth: alice, req: requestFrom("2001:db8::1"), bearer: "a" },
        recorder().handle,
      ),
    ).toBe("function");
    expect(
      callers.admit({ auth: bob, req: requestFrom("2001:db8::2"), bearer: "b" }, recorder().handle),
    ).toBe("TOO_MANY_CONNECTIONS");
    const admin = createAuthContext({ isAdmin: true, via: "admin" });
    for (let index = 0; index < 3; index++) {
      expect(
        typeof callers.admit(
          { auth: admin, req: requestFrom("2001:db8::3"), bearer: "x" },
          recorder().handle,
        ),
      ).toBe("function");
    }
  });

  it("re-resolves the kept credential: revoked, changed, or the same caller", async () => {
    let answer: AuthContext | null = alice;
    const seenCredentials: (string | undefined)[] = [];
    const callers = createLiveCallers({
      // The kept credential is the session cookie: the resolvers are not asked.
      authenticate: {
        resolvers: [
          (token) => {
            seenCredentials.push(`bearer:${token}`);
            return answer;
          },
        ],
        cookie: {
          name: "svc_session",
          resolve: async (token) => {
            seenCredentials.push(`cookie:${token}`);
            return answer;
          },
        },
      },
      recheckIntervalMs: 0,
    });
    const viaCookie = recorder();
    callers.admit(
      { auth: alice, req: requestFrom("10.0.0.1", "svc_session=x"), bearer: undefined },
      viaCookie.handle,
    );
    await callers.recheckUser("alice");
    expect(viaCookie.seen).toEqual([]);
    expect(seenCredentials).toEqual(["cookie:x"]);
    answer = createAuthContext({ ...alice, tenantId: "o1", roles: ["member"] });
    await callers.recheckUser("alice");
    expect(viaCookie.seen).toEqual(["changed:o1"]);
    answer = null;
    await callers.recheck();
    expect(viaCookie.seen).toEqual(["changed:o1", "revoked"]);
    // Revoked connections leave the registry: nothing more is asked of them.
    await callers.recheck();
    expect(viaCookie.seen).toHaveLength(2);
    expect(callers.connections).toBe(0);
  });

  it("treats a throwing resolver and another user as revoked", async () => {
    const callers = createLiveCallers({
      authenticate: {
        resolvers: [
          (token) => {
            if (token === "bad") throw new Error("INVALID_API_KEY");
            return createAuthContext({ userId: "mallory", via: "session", sessionId: "s9" });
          },
        ],
      },
      recheckIntervalMs: 0,
    });
    const thrown = recorder();
    const other = recorder();
    callers.admit({ auth: alice, req: requestFrom("10.0.0.1"), bearer: "bad" }, thrown.handle);
    callers.admit({ auth: alice, req: requestFrom("10.0.0.1"), bearer: "other" }, other.handle);
    await callers.recheckUser("alice");
    expect(thrown.seen).toEqual(["revoked"]);
    expect(other.seen).toEqual(["revoked"]);
  });

  it("runs a trigger that arrives during a re-check once more after it", async () => {
    let calls = 0;
    let release: () => void = () => undefined;
    const callers = createLiveCallers({
      authenticate: {
        resolvers: [
          async () => {
            calls += 1;
            if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
            return alice;
          },
        ],
      },
      recheckIntervalMs: 0,
    });
    callers.admit({ auth: alice, req: requestFrom("10.0.0.1"), bearer: "t" }, recorder().handle);
    const first = callers.recheckUser("alice");
    const second = callers.recheckUser("alice");
    const third = callers.recheckUser("alice");
    release();
    await Promise.all([first, second, third]);
    expect(calls).toBe(2);
  });
});

describe("listing and closing connections", () => {
  const alice = createAuthContext({ userId: "alice", via: "session", sessionId: "s1" });

  it("lists each connection's caller, transport, room and subscriptions, never its credential", () => {
    let clock = 1000;
    const callers = createLiveCallers({
      authenticate: { resolvers: [() => alice] },
      recheckIntervalMs: 0,
      now: () => clock,
    });
    const withAgent = {
      headers: { cookie: "svc_session=secret-cookie", "user-agent": "test/1" },
      socket: { remoteAddress: "10.0.0.1" },
    } as unknown as IncomingMessage;
    callers.admit(
      { auth: alice, req: withAgent, bearer: undefined, transport: "sse" },
      {
        ...recorder().handle,
        subscriptions: () => [{ id: "q", query: "listTodos" }],
      },
    );
    clock = 2000;
    const admin = createAuthContext({ isAdmin: true, via: "admin" });
    callers.admit(
      {
        auth: admin,
        req: requestFrom("10.0.0.2"),
        bearer: "admin-token-secret",
        transport: "room",
        room: { name: "lobby", key: null },
      },
      recorder().handle,
    );
    const listed = callers.list();
    expect(listed).toEqual([
      expect.objectContaining({
        transport: "sse",
        openedAt: 1000,
        userId: "alice",
        via: "session",
        address: "10.0.0.1",
        userAgent: "test/1",
        subscriptions: [{ id: "q", query: "listTodos" }],
      }),
      expect.objectContaining({
        transport: "room",
        openedAt: 2000,
        userId: null,
        isAdmin: true,
        address: "10.0.0.2",
        subscriptions: [],
        room: { name: "lobby", key: null },
      }),
    ]);
    expect(new Set(listed.map((connection) => connection.id)).size).toBe(2);
    const text = JSON.stringify(listed);
    for (const secret of ["secret-cookie", "admin-token-secret", "s1"]) {
      expect(text).not.toContain(secret);
    }
  });

  it("closes a connection through its handle's close, else as revoked", () => {
    const callers = createLiveCallers({
      authenticate: { resolvers: [() => alice] },
      recheckIntervalMs: 0,
    });
    const closed: string[] = [];
    const release = callers.admit(
      { auth: alice, req: requestFrom("10.0.0.1"), bearer: "t" },
      { ...recorder().handle, close: () => closed.push("closed") },
    );
    const plain = recorder();
    callers.admit({ auth: alice, req: requestFrom("10.0.0.1"), bearer: "t" }, plain.handle);
    const [first, second] = callers.list();
    expect(callers.disconnect(first?.id ?? "")).toBe(true);
    expect(closed).toEqual(["closed"]);
    // The transport releases its place once the socket is closed.
    if (typeof release === "function") release();
    expect(callers.disconnect(second?.id ?? "")).toBe(true);
    expect(plain.seen).toEqual(["revoked"]);
    expect(callers.connections).toBe(0);
    expect(callers.disconnect("nope")).toBe(false);
  });
});

describe("createLiveCallers hold", () => {
  it("holds while at least one connection is open: taken at the first, released after the last", () => {
    const events: string[] = [];
    const callers = createLiveCallers({
      authenticate: { resolvers: [] },
      recheckIntervalMs: 0,
      hold: () => {
        events.push("hold");
        return () => events.push("release");
      },
    });
    const auth = createAuthContext({ userId: "u1", via: "session", sessionId: "s1" });
    const admit = () => {
      const release = callers.admit(
        { auth, req: requestFrom("203.0.113.7"), bearer: undefined },
        recorder().handle,
      );
      if (typeof release === "string") throw new Error(release);
      return release;
    };
    const first = admit();
    expect(events).toEqual(["hold"]);
    const second = admit();
    first();
    first();
    expect(events).toEqual(["hold"]);
    second();
    expect(events).toEqual(["hold", "release"]);
    const third = admit();
    expect(events).toEqual(["hold", "release", "hold"]);
    third();
    expect(events).toEqual(["hold", "release", "hold", "release"]);
    callers.close();
  });
});
