import { createPgSignal } from "@svc/store/pg";
import { postgresTestDatabases, postgresUrl } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import type { Revocation } from "../src/index.js";
import { databases, openAuthFixture } from "./fixture.js";

// The revocation journal: every committed change to a user's credentials is
// announced to this process's listeners at once and reaches another
// process's (another server on the same database, or a process sharing the
// SQLite session file) on its next poll, or at once when a signal rings, once.

describe.each(postgresTestDatabases())(
  "revocation journal across two processes on $name",
  (database) => {
    it("tells the other process once, and drops its cached session", async () => {
      await using f = await openAuthFixture(database);
      const other = await f.connect();
      try {
        const alice = await f.signIn("alice@example.com");
        // The other process resolves (and caches) Alice's session.
        expect(await other.auth.resolveSession(alice.token)).not.toBeNull();
        const seenHere: Revocation[] = [];
        const seenThere: Revocation[] = [];
        const stopHere = f.auth.onRevoked((revocation) => seenHere.push(revocation));
        const stopThere = other.auth.onRevoked((revocation) => seenThere.push(revocation));
        await f.auth.revokeSession(alice.context);
        expect(seenHere).toEqual([{ userId: alice.userId, reason: "sign-out", local: true }]);
        await expect
          .poll(() => seenThere, { timeout: 2000 })
          .toEqual([{ userId: alice.userId, reason: "sign-out", local: false }]);
        // Its cache no longer answers for the revoked token.
        expect(await other.auth.resolveSession(alice.token)).toBeNull();
        // Later polls do not deliver the same entry again, nor this process's own.
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(seenThere).toHaveLength(1);
        expect(seenHere).toHaveLength(1);
        stopHere();
        stopThere();
      } finally {
        await other.close();
      }
    });
  },
);

describe.each(postgresTestDatabases())(
  "revocation journal rung through a Postgres signal on $name",
  (database) => {
    it("reaches the other process by the signal alone, long before a poll", async () => {
      await using f = await openAuthFixture(database);
      const other = await f.connect();
      const url = postgresUrl(f.target);
      const signals = [0, 1].map(() =>
        createPgSignal({ connectionString: url, channel: "svc_auth_revocations" }),
      );
      try {
        // A minute between polls: only the signal can deliver within the test.
        const [here, there] = signals.map((revocationSignal) =>
          (revocationSignal === signals[0] ? f : other).createAuth({
            revocationPollMs: 60_000,
            revocationSignal,
          }),
        );
        if (here === undefined || there === undefined) throw new Error("two auths expected");
        const alice = await f.signIn("alice@example.com", here);
        const seenThere: Revocation[] = [];
        const stop = there.onRevoked((revocation) => seenThere.push(revocation));
        await expect.poll(() => signals[1]?.connected(), { timeout: 2000 }).toBe(true);
        const started = performance.now();
        await here.revokeSession(alice.context);
        await expect
          .poll(() => seenThere, { timeout: 2000, interval: 5 })
          .toEqual([{ userId: alice.userId, reason: "sign-out", local: false }]);
        expect(performance.now() - started).toBeLessThan(1000);
        stop();
        await here.close();
        await there.close();
      } finally {
        await Promise.all(signals.map((signal) => signal.close()));
        await other.close();
      }
    });
  },
);

describe.each(databases)("revocation reasons on $name", (database) => {
  it("announces each credential change with its reason", async () => {
    await using f = await openAuthFixture(database);
    const seen: Revocation[] = [];
    f.auth.onRevoked((revocation) => seen.push(revocation));
    const alice = await f.signIn("alice@example.com");
    const key = await f.auth.createApiKey(alice.context, { name: "k" });
    await f.auth.revokeApiKey(alice.context, key.id);
    await f.auth.revokeAllSessions(alice.context);
    const again = await f.signIn("alice2@example.com");
    await f.auth.deleteAccount(again.context);
    expect(seen.map(({ reason, local }) => ({ reason, local }))).toEqual([
      { reason: "api-key-revoked", local: true },
      { reason: "sessions-revoked", local: true },
      { reason: "account-deleted", local: true },
    ]);
    expect(seen.map((revocation) => revocation.userId)).toEqual([
      alice.userId,
      alice.userId,
      again.userId,
    ]);
  });
});
