import { postgresTestDatabase } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import {
  createTestDatabase,
  post,
  readJSON,
  registerPassword,
  request,
  startAuthServer,
} from "./auth-fixtures.js";
import { databaseEnv } from "./fixtures.js";

// Issue 22, goal 3: each server caches resolved sessions and API keys, and
// a revocation on one server reaches the others' caches through auth-core's
// revocation journal: the revoking server rings a Postgres signal and the
// others read the journal at once (their poll, every second, only catches
// up after a lost signal connection). Without them a cached token would be
// accepted for up to a second after its revocation.

const postgres = postgresTestDatabase();

/** Milliseconds until `server` refuses `token` with 401, polling every 5 ms (fails after 2 s). */
async function msUntilRefused(server: { url: string }, token: string): Promise<number> {
  const started = performance.now();
  for (;;) {
    const answer = await request(server, "GET", "/api/auth/me", { token });
    if (answer.status === 401) return performance.now() - started;
    expect(answer.status).toBe(200);
    if (performance.now() - started > 2000) throw new Error("still accepted after 2 s");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.skipIf(postgres === undefined)("credentials on two servers sharing Postgres", () => {
  it.each([
    [
      "a sign-out",
      async (server: { url: string }, token: string) =>
        request(server, "DELETE", "/api/auth/session", { token }),
      (session: string) => session,
    ],
    [
      "an API key's revocation",
      async (server: { url: string }, session: string, keyId?: string) =>
        request(server, "DELETE", `/api/auth/api-keys/${keyId}`, { token: session }),
      (_session: string, key?: string) => key ?? "",
    ],
  ])(
    "%s on one server is refused by the other within 100 ms (the median of three)",
    async (_name, revoke, pick) => {
      if (postgres === undefined) return;
      await using db = await createTestDatabase(postgres);
      const env = { ...databaseEnv(db.target), SVC_RATE_LIMIT: "off" };
      await using a = await startAuthServer(env);
      await using b = await startAuthServer(env);
      const delays: number[] = [];
      for (let round = 0; round < 3; round += 1) {
        const alice = await registerPassword(a, `alice-${round}@example.com`);
        const key = await readJSON<{ key: string; id: string }>(
          post(a, "/api/auth/api-keys", { name: "cli" }, { token: alice.token }),
        );
        expect(key.status).toBe(200);
        const token = pick(alice.token, key.body.key);
        // Warm B's cache: the second answer comes from memory.
        for (let i = 0; i < 2; i++) {
          expect((await request(b, "GET", "/api/auth/me", { token })).status).toBe(200);
        }
        const revoked = await revoke(a, alice.token, key.body.id);
        expect(revoked.status).toBe(200);
        // The server that revoked refuses at once.
        expect((await request(a, "GET", "/api/auth/me", { token })).status).toBe(401);
        delays.push(await msUntilRefused(b, token));
      }
      // A ring takes a round trip; a single slow turn of a loaded machine
      // may pass 100 ms, the middle of three should not (nor would the
      // one-second poll without the signal).
      delays.sort((x, y) => x - y);
      expect(delays[1]).toBeLessThan(100);
      expect(delays[2]).toBeLessThan(500);
    },
  );
});
