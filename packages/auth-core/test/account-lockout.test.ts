import { closeFakeServers } from "@svc/tooling/http-server";
import { afterEach, describe, expect, it } from "vitest";
import type { AuthRouterOptions } from "../src/express.js";
import type { Auth } from "../src/index.js";
import { type AuthFixture, databases, useAuthFixture } from "./fixture.js";
import { serveAuthRouter } from "./serve-auth-router.js";

// The sign-in lockout policy over HTTP: a per-account-and-address limit that
// only holds back the caller who guesses, and an account-wide cap on failed
// attempts that strangers cannot turn against the owner (an address that
// signed in before passes it; with a CAPTCHA configured, so does a solved
// challenge). Addresses come from X-Forwarded-For (`trust proxy`), as an
// attacker who controls many addresses (or a misconfigured proxy) sends them.

const EMAIL = "owner@example.com";
const PASSWORD = "the owner's long password";
const WRONG = "not the password at all";
const HOME = "198.51.100.7";

afterEach(closeFakeServers);

/** Serves `auth`'s router (limits on, the fixture's clock) behind a trusted proxy. */
function serve(
  f: AuthFixture,
  options: { auth?: Auth; rateLimit?: Exclude<AuthRouterOptions["rateLimit"], false> } = {},
): Promise<string> {
  return serveAuthRouter(options.auth ?? f.createAuth({ devMode: true }), {
    trustProxy: true,
    router: { rateLimit: { now: f.clock.now, ...options.rateLimit } },
  });
}

interface Answer {
  readonly status: number;
  readonly code: unknown;
  readonly retryAfter: string | null;
}

/** `POST /api/auth/password/login` from `address`. */
async function login(
  base: string,
  address: string,
  password: string,
  extra: Record<string, unknown> = {},
): Promise<Answer> {
  const response = await fetch(`${base}/api/auth/password/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": address },
    body: JSON.stringify({ email: EMAIL, password, ...extra }),
  });
  const body = (await response.json()) as { error?: { code?: unknown } };
  return {
    status: response.status,
    code: body.error?.code,
    retryAfter: response.headers.get("retry-after"),
  };
}

/** The n-th stranger's address: one per request, as a botnet or spoofed header gives. */
const stranger = (n: number): string => `203.0.113.${n}`;

describe.each(databases)("the sign-in lockout on $name", (database) => {
  const fixture = useAuthFixture(database);

  // Regression (issue 21, finding 7): 20 wrong passwords for one account from
  // spoofed addresses locked its owner out for about 15 minutes.
  it("lets the owner sign in after 25 wrong passwords from 25 other addresses (defaults)", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, PASSWORD);
    const base = await serve(f);
    for (let n = 1; n <= 25; n += 1) {
      expect((await login(base, stranger(n), WRONG)).code, `attempt ${n}`).toBe(
        "INVALID_CREDENTIALS",
      );
    }
    expect((await login(base, HOME, PASSWORD)).status).toBe(200);
  });

  it("holds back only the address that guesses: the 21st attempt from it in 15 minutes", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, PASSWORD);
    const base = await serve(f);
    for (let attempt = 1; attempt <= 20; attempt += 1) {
      expect((await login(base, stranger(1), WRONG)).status, `attempt ${attempt}`).toBe(401);
    }
    const limited = await login(base, stranger(1), PASSWORD);
    expect(limited).toMatchObject({ status: 429, code: "RATE_LIMITED" });
    expect(Number(limited.retryAfter)).toBe(15 * 60);
    expect((await login(base, stranger(2), PASSWORD)).status).toBe(200);
    f.clock.advance(15 * 60_000);
    expect((await login(base, stranger(1), PASSWORD)).status).toBe(200);
  });

  it("caps failed attempts over every address, except for an address that signed in before", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, PASSWORD);
    const base = await serve(f, { rateLimit: { accountLockout: { limit: 5, windowMs: 60_000 } } });
    // The owner signs in from home once; successes never count as failures.
    for (let i = 0; i < 3; i += 1) expect((await login(base, HOME, PASSWORD)).status).toBe(200);
    for (let n = 1; n <= 5; n += 1) {
      expect((await login(base, stranger(n), WRONG)).status, `attempt ${n}`).toBe(401);
    }
    // Brute force is bounded: past the cap, a new address is refused before
    // its password is even checked (the right one included).
    const capped = await login(base, stranger(6), PASSWORD);
    expect(capped).toMatchObject({ status: 429, code: "RATE_LIMITED" });
    expect(Number(capped.retryAfter)).toBe(60);
    expect((await login(base, stranger(7), WRONG)).status).toBe(429);
    // The owner, from an address that signed in before, is not locked out.
    expect((await login(base, HOME, PASSWORD)).status).toBe(200);
    // Once the window has passed, anyone may try again.
    f.clock.advance(60_000);
    expect((await login(base, stranger(6), PASSWORD)).status).toBe(200);
  });

  it("forgets a known address after knownAddressMs", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, PASSWORD);
    const base = await serve(f, {
      rateLimit: { accountLockout: { limit: 2, windowMs: 600_000 }, knownAddressMs: 60_000 },
    });
    expect((await login(base, HOME, PASSWORD)).status).toBe(200);
    f.clock.advance(60_000);
    for (const n of [1, 2]) expect((await login(base, stranger(n), WRONG)).status).toBe(401);
    expect((await login(base, HOME, PASSWORD)).status).toBe(429);
  });

  it("with a CAPTCHA configured, lets a caller past the cap through with a solved challenge", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, PASSWORD);
    const auth = f.createAuth({
      devMode: true,
      captcha: { provider: "turnstile", verify: async (token) => token === "solved" },
    });
    const base = await serve(f, {
      auth,
      rateLimit: { accountLockout: { limit: 3, windowMs: 60_000 } },
    });
    // Below the cap no challenge is asked for.
    for (const n of [1, 2, 3]) expect((await login(base, stranger(n), WRONG)).status).toBe(401);
    expect(await login(base, HOME, PASSWORD)).toMatchObject({
      status: 400,
      code: "CAPTCHA_FAILED",
    });
    expect(await login(base, HOME, PASSWORD, { captchaToken: "guessed" })).toMatchObject({
      status: 400,
      code: "CAPTCHA_FAILED",
    });
    expect((await login(base, HOME, PASSWORD, { captchaToken: "solved" })).status).toBe(200);
    // The address is known now: no challenge needed from it.
    expect((await login(base, HOME, PASSWORD)).status).toBe(200);
  });

  it("applies the cap to 6-digit codes too, not to sends", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, PASSWORD);
    const base = await serve(f, { rateLimit: { accountLockout: { limit: 2, windowMs: 60_000 } } });
    const post = (path: string, address: string, body: Record<string, unknown>) =>
      fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": address },
        body: JSON.stringify({ email: EMAIL, ...body }),
      });
    for (const n of [1, 2]) {
      expect((await post("/api/auth/magic/verify", stranger(n), { code: "000000" })).status).toBe(
        401,
      );
    }
    expect((await post("/api/auth/magic/verify", stranger(3), { code: "000000" })).status).toBe(
      429,
    );
    // Asking for a code is not a guess: the owner can still get one.
    expect((await post("/api/auth/magic/send", HOME, {})).status).toBe(200);
  });
});
