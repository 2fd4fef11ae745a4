import { adminAuth, anonymousAuth } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { DEFAULT_SESSION_LIFETIME_SECS } from "../src/index.js";
import { SESSION_CACHE_TTL_MS } from "../src/session-cache.js";
import { plainUserContext } from "./contexts.js";
import {
  databases,
  expectAuthError,
  START,
  sessionOf,
  sha256Hex,
  useAuthFixture,
} from "./fixture.js";

// Session states on every database: created -> active -> revoked (revokeSession,
// revokeAllSessions) or expired (after the lifetime); a revoked or expired
// session resolves to null at once.

const TOKEN = /^svc_[A-Za-z0-9_-]{43}$/;

describe.each(databases)("sessions on $name", (database) => {
  const fixture = useAuthFixture(database);

  it("a sign-in creates an active session that resolves to its user", async () => {
    const f = fixture();
    const { token, userId, context } = await f.signIn("a@example.com");
    expect(token).toMatch(TOKEN);
    expect(context).toEqual(plainUserContext(userId, "session", sha256Hex(token)));
  });

  it("the sign-in answer's expires_at is the lifetime after the clock, in unix seconds", async () => {
    const f = fixture();
    await f.auth.sendMagicCode({ email: "a@example.com" }, { exposeDevCode: false });
    const answer = await f.auth.verifyMagicCode(
      { email: "a@example.com", code: f.lastCode("a@example.com") },
      {},
    );
    expect(sessionOf(answer).expires_at).toBe(
      Math.floor(START / 1000) + DEFAULT_SESSION_LIFETIME_SECS,
    );
  });

  it("unknown tokens resolve to null", async () => {
    const f = fixture();
    const { token } = await f.signIn("a@example.com");
    expect(await f.auth.resolveSession(`${token.slice(0, -1)}x`)).toBeNull();
    expect(await f.auth.resolveSession("svc_")).toBeNull();
    expect(await f.auth.resolveSession("")).toBeNull();
  });

  it("active -> revoked by revokeSession: null at once, the user's other sessions live on", async () => {
    const f = fixture();
    const first = await f.signIn("a@example.com");
    f.clock.advance(60_000);
    const second = await f.signIn("a@example.com");
    // Resolve again so any cache holds the session, with the clock not moved.
    expect(await f.auth.resolveSession(first.token)).not.toBeNull();
    expect(await f.auth.revokeSession(first.context)).toEqual({ revoked: true });
    expect(await f.auth.resolveSession(first.token)).toBeNull();
    expect(await f.auth.resolveSession(second.token)).toEqual(second.context);
    const listed = await f.auth.listSessions(second.context);
    expect(listed.map((session) => [session.id, session.current])).toEqual([
      [second.context.sessionId, true],
    ]);
  });

  it("active -> revoked by revokeAllSessions: every session of the user, no one else's", async () => {
    const f = fixture();
    const first = await f.signIn("a@example.com");
    f.clock.advance(60_000);
    const second = await f.signIn("a@example.com");
    const other = await f.signIn("b@example.com");
    await f.auth.resolveSession(first.token);
    expect(await f.auth.revokeAllSessions(second.context)).toEqual({ revoked: 2 });
    expect(await f.auth.resolveSession(first.token)).toBeNull();
    expect(await f.auth.resolveSession(second.token)).toBeNull();
    expect(await f.auth.resolveSession(other.token)).toEqual(other.context);
  });

  it("a revocation through another Auth instance on the same database holds within the cache's second", async () => {
    const f = fixture();
    const { token, context } = await f.signIn("a@example.com");
    const other = f.createAuth();
    expect(await f.auth.resolveSession(token)).not.toBeNull();
    await other.revokeSession(context);
    f.clock.advance(SESSION_CACHE_TTL_MS);
    expect(await f.auth.resolveSession(token)).toBeNull();
  });

  it.each([
    { elapsed: DEFAULT_SESSION_LIFETIME_SECS * 1000 - 1, active: true },
    { elapsed: DEFAULT_SESSION_LIFETIME_SECS * 1000, active: false },
    { elapsed: DEFAULT_SESSION_LIFETIME_SECS * 1000 + 1, active: false },
  ])(
    "$elapsed ms after the sign-in (default 30 days) the session is active: $active",
    async ({ elapsed, active }) => {
      const f = fixture();
      const { token, context } = await f.signIn("a@example.com");
      const lastLiveMs = DEFAULT_SESSION_LIFETIME_SECS * 1000 - 1;
      f.clock.advance(lastLiveMs);
      // Resolved at its last live millisecond, so a cache holds it when the lifetime ends.
      expect(await f.auth.resolveSession(token)).not.toBeNull();
      f.clock.advance(elapsed - lastLiveMs);
      expect(await f.auth.resolveSession(token)).toEqual(active ? context : null);
    },
  );

  it("a custom lifetime ends the session and drops it from the list", async () => {
    const f = fixture();
    const auth = f.createAuth({ sessionLifetimeSecs: 120 });
    const short = await f.signIn("a@example.com", auth);
    const long = await f.signIn("b@example.com");
    f.clock.advance(120_000);
    expect(await auth.resolveSession(short.token)).toBeNull();
    expect(await auth.resolveSession(long.token)).not.toBeNull();
    expect(await f.auth.listSessions(short.context)).toEqual([]);
  });

  it("lists the user's live sessions, newest first, with their client info", async () => {
    const f = fixture();
    const first = await f.signIn("a@example.com");
    f.clock.advance(60_000);
    await f.auth.sendMagicCode({ email: "a@example.com" }, { exposeDevCode: false });
    const second = await f.auth.verifyMagicCode(
      { email: "a@example.com", code: f.lastCode("a@example.com") },
      { ip: "203.0.113.9", userAgent: "test-agent" },
    );
    const list = await f.auth.listSessions(first.context);
    expect(list).toEqual([
      {
        id: sha256Hex(sessionOf(second).token),
        current: false,
        guest: false,
        created_at: Math.floor(START / 1000) + 60,
        expires_at: sessionOf(second).expires_at,
        user_agent: "test-agent",
        ip: "203.0.113.9",
      },
      {
        id: first.context.sessionId,
        current: true,
        guest: false,
        created_at: Math.floor(START / 1000),
        expires_at: Math.floor(START / 1000) + DEFAULT_SESSION_LIFETIME_SECS,
        user_agent: null,
        ip: null,
      },
    ]);
  });

  it("a guest session is a user id without a User row, revocable like any session", async () => {
    const f = fixture();
    const guest = await f.auth.createGuest({});
    expect(guest.token).toMatch(TOKEN);
    expect(guest.user_id).toMatch(/^[0-9a-f]{40}$/);
    const context = await f.auth.resolveSession(guest.token);
    expect(context).toMatchObject({ userId: guest.user_id, isGuest: true, via: "guest" });
    if (context === null) throw new Error("unreachable");
    expect(await f.auth.me(context)).toEqual({
      user_id: guest.user_id,
      via: "guest",
      is_guest: true,
      session_id: sha256Hex(guest.token),
      user: null,
    });
    expect(await f.store.systemReader().get("User", guest.user_id)).toBeNull();
    expect(await f.auth.revokeSession(context)).toEqual({ revoked: true });
    expect(await f.auth.resolveSession(guest.token)).toBeNull();
  });

  it("me answers the signed-in user's row", async () => {
    const f = fixture();
    const { context, userId } = await f.signIn("a@example.com");
    expect(await f.auth.me(context)).toEqual({
      user_id: userId,
      via: "session",
      is_guest: false,
      session_id: context.sessionId,
      user: expect.objectContaining({
        id: userId,
        email: "a@example.com",
        emailVerified: f.clock.iso(),
      }),
    });
  });

  it.each([
    { caller: "anonymous", auth: anonymousAuth },
    { caller: "admin token", auth: adminAuth },
  ])("the session operations answer 401 AUTH_REQUIRED to the $caller", async ({ auth }) => {
    const f = fixture();
    await expectAuthError(f.auth.revokeSession(auth), "AUTH_REQUIRED", 401);
    await expectAuthError(f.auth.revokeAllSessions(auth), "AUTH_REQUIRED", 401);
    await expectAuthError(f.auth.listSessions(auth), "AUTH_REQUIRED", 401);
    await expectAuthError(f.auth.me(auth), "AUTH_REQUIRED", 401);
  });
});
