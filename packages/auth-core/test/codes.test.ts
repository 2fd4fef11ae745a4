import { describe, expect, it } from "vitest";
import { type AuthErrorCode, CODE_TTL_MS, MAX_ATTEMPTS, SEND_COOLDOWN_MS } from "../src/index.js";
import {
  type AuthFixture,
  databases,
  expectAuthError,
  expectRateLimited,
  otherCode,
  useAuthFixture,
} from "./fixture.js";

// The spec's state table for one-time codes, on every database:
// issued --right code--> consumed (single use)
// issued --wrong code, fewer than 5 so far--> issued (INVALID_CODE, counter + 1)
// issued --5th wrong code--> burned (later guesses, even right: 429 RATE_LIMITED)
// issued --10 minutes--> expired (INVALID_CODE)
// Magic links and phone codes share the machinery and are held to the same table.

interface FlowHandle {
  readonly purpose: string;
  readonly subject: string;
  send(): Promise<unknown>;
  /** The secret the newest send delivered. */
  secret(): string;
  /** A wrong secret of the same shape. */
  wrong(secret: string): string;
  verify(secret: string): Promise<unknown>;
  /** Checks what a successful verify did. */
  expectAccepted(result: unknown): Promise<void>;
}

interface CodeFlow {
  readonly name: string;
  readonly invalid: AuthErrorCode;
  readonly invalidStatus: number;
  open(f: AuthFixture): Promise<FlowHandle>;
}

const flows: readonly CodeFlow[] = [
  {
    name: "magic code",
    invalid: "INVALID_CODE",
    invalidStatus: 401,
    async open(f) {
      const email = "magic@example.com";
      return {
        purpose: "magic",
        subject: email,
        send: () => f.auth.sendMagicCode({ email }, { exposeDevCode: false }),
        secret: () => f.lastCode(email),
        wrong: otherCode,
        verify: (code) => f.auth.verifyMagicCode({ email, code }, {}),
        async expectAccepted(result) {
          const { token, user_id } = result as { token: string; user_id: string };
          expect((await f.auth.resolveSession(token))?.userId).toBe(user_id);
          const user = await f.store.systemReader().get("User", user_id);
          expect(user).toMatchObject({ email, emailVerified: f.clock.iso() });
        },
      };
    },
  },
  {
    name: "email verification code",
    invalid: "INVALID_CODE",
    // The spec leaves the status open; auth-core answers 400 so a client does
    // not read a wrong code as "signed out".
    invalidStatus: 400,
    async open(f) {
      const email = "verify@example.com";
      const { context, userId } = await f.signIn(email);
      return {
        purpose: "verify",
        subject: email,
        send: () => f.auth.sendVerification(context, { exposeDevCode: false }),
        secret: () => f.lastCode(email),
        wrong: otherCode,
        verify: (code) => f.auth.verifyEmail(context, { code }),
        async expectAccepted(result) {
          expect(result).toEqual({ verified: true, emailVerified: f.clock.iso() });
          expect(f.clock.iso()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
          const user = await f.store.systemReader().get("User", userId);
          expect(user?.emailVerified).toBe(f.clock.iso());
        },
      };
    },
  },
  {
    name: "magic link",
    invalid: "INVALID_LINK",
    invalidStatus: 401,
    async open(f) {
      const email = "link@example.com";
      const targets = { baseURL: "http://localhost:3000", trustedOrigins: [] };
      return {
        purpose: "link",
        subject: email,
        send: () => f.auth.sendMagicLink({ email }, { ...targets, exposeDevCode: false }),
        secret: () => f.lastLink(email).searchParams.get("token") ?? "",
        wrong: (token) => `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`,
        verify: (token) => f.auth.verifyMagicLink({ email, token }, {}),
        async expectAccepted(result) {
          const { token, user_id } = result as { token: string; user_id: string };
          expect((await f.auth.resolveSession(token))?.userId).toBe(user_id);
        },
      };
    },
  },
  {
    name: "phone code",
    invalid: "INVALID_CODE",
    invalidStatus: 401,
    async open(f) {
      const phone = "+14155550100";
      const user = await f.insertUser({ email: "phone@example.com", phone });
      const auth = f.createAuth({ sms: f.inbox });
      return {
        purpose: "phone",
        subject: phone,
        send: () => auth.sendPhoneCode({ phone: "+1 415-555-0100" }, { exposeDevCode: false }),
        secret: () => f.lastCode(phone),
        wrong: otherCode,
        verify: (code) => auth.verifyPhoneCode({ phone, code }, {}),
        async expectAccepted(result) {
          expect(result).toMatchObject({ user_id: user.id });
        },
      };
    },
  },
];

async function attemptsOf(f: AuthFixture, flow: FlowHandle): Promise<number> {
  const row = await f.tables
    .selectFrom("svc_codes")
    .select("attempts")
    .where("purpose", "=", flow.purpose)
    .where("subject", "=", flow.subject)
    .executeTakeFirstOrThrow();
  return Number(row.attempts);
}

describe.each(databases)("code states on $name", (database) => {
  const fixture = useAuthFixture(database);

  describe.each(flows)("$name", (spec) => {
    /** A fresh fixture with one code sent through the flow. */
    async function sent() {
      const f = fixture();
      const flow = await spec.open(f);
      await flow.send();
      return { f, flow, secret: flow.secret() };
    }

    async function expectInvalid(verified: Promise<unknown>): Promise<void> {
      await expectAuthError(verified, spec.invalid, spec.invalidStatus);
    }

    it("issued -> consumed by the right code, and only once", async () => {
      const { f, flow, secret } = await sent();
      f.clock.advance(30_000);
      await flow.expectAccepted(await flow.verify(secret));
      await expectInvalid(flow.verify(secret));
    });

    it("a wrong code keeps it issued with INVALID_CODE for attempts 1..5, then even the right one is 429", async () => {
      const { f, flow, secret } = await sent();
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        await expectInvalid(flow.verify(flow.wrong(secret)));
        expect(await attemptsOf(f, flow)).toBe(attempt);
      }
      const retryAfter = await expectRateLimited(flow.verify(secret));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // Still burned later on, with a wrong guess too; the counter stays at the cap.
      f.clock.advance(SEND_COOLDOWN_MS);
      await expectRateLimited(flow.verify(flow.wrong(secret)));
      await expectRateLimited(flow.verify(secret));
      expect(await attemptsOf(f, flow)).toBe(MAX_ATTEMPTS);
    });

    it("after 4 wrong attempts (fewer than 5) the right code is still accepted", async () => {
      const { flow, secret } = await sent();
      for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
        await expectInvalid(flow.verify(flow.wrong(secret)));
      }
      await flow.expectAccepted(await flow.verify(secret));
    });

    it.each([
      { elapsed: CODE_TTL_MS - 1, accepted: true },
      { elapsed: CODE_TTL_MS, accepted: false },
      { elapsed: CODE_TTL_MS + 60 * 60 * 1000, accepted: false },
    ])(
      "$elapsed ms after the send the right code is accepted: $accepted",
      async ({ elapsed, accepted }) => {
        const { f, flow, secret } = await sent();
        f.clock.advance(elapsed);
        if (accepted) await flow.expectAccepted(await flow.verify(secret));
        else await expectInvalid(flow.verify(secret));
      },
    );

    it("a burned code is replaced by a new send once the cooldown has passed", async () => {
      const { f, flow, secret: burned } = await sent();
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        await expectInvalid(flow.verify(flow.wrong(burned)));
      }
      f.clock.advance(SEND_COOLDOWN_MS);
      await flow.send();
      const fresh = flow.secret();
      expect(await attemptsOf(f, flow)).toBe(0);
      await flow.expectAccepted(await flow.verify(fresh));
    });

    it("a new send after the cooldown replaces the previous code", async () => {
      const { f, flow, secret: first } = await sent();
      // Six random digits repeat once in a million sends: send again until they differ.
      let second = first;
      while (second === first) {
        f.clock.advance(SEND_COOLDOWN_MS);
        await flow.send();
        second = flow.secret();
      }
      await expectInvalid(flow.verify(first));
      await flow.expectAccepted(await flow.verify(second));
    });
  });
});
