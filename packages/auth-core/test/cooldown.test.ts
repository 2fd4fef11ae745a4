import { toErrorResponse } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { AuthError, type EmailTransport, SEND_COOLDOWN_MS } from "../src/index.js";
import {
  type AuthFixture,
  databases,
  expectAuthError,
  expectRateLimited,
  FROM,
  rejectionOf,
  sessionOf,
  useAuthFixture,
} from "./fixture.js";

// One code per (purpose, email) per 60 s; emails are trimmed and lower-cased
// first; a send the transport refuses costs no cooldown.

const send = (f: AuthFixture, email: unknown) =>
  f.auth.sendMagicCode({ email }, { exposeDevCode: false });

const rejectingTransport = (error: unknown): EmailTransport => ({
  name: "rejecting",
  send: () => Promise.reject(error),
});

describe.each(databases)("send cooldown on $name", (database) => {
  const fixture = useAuthFixture(database);

  it.each([
    { elapsed: 0, retryAfter: 60 },
    { elapsed: 1, retryAfter: 60 },
    { elapsed: 30_500, retryAfter: 30 },
    { elapsed: 59_000, retryAfter: 1 },
    { elapsed: 59_999, retryAfter: 1 },
  ])(
    "a second send $elapsed ms after the first is 429 with retry_after_secs $retryAfter",
    async ({ elapsed, retryAfter }) => {
      const f = fixture();
      await send(f, "a@example.com");
      f.clock.advance(elapsed);
      expect(await expectRateLimited(send(f, "a@example.com"))).toBe(retryAfter);
      expect(f.inbox.messages()).toHaveLength(1);
    },
  );

  it("the 429 maps to the wire body with retry_after_secs and a Retry-After header", async () => {
    const f = fixture();
    await send(f, "a@example.com");
    f.clock.advance(15_000);
    const response = toErrorResponse(await rejectionOf(send(f, "a@example.com")));
    expect(response).toMatchObject({
      status: 429,
      body: { error: { code: "RATE_LIMITED", message: expect.any(String) }, retry_after_secs: 45 },
      headers: { "Retry-After": "45" },
    });
  });

  it("after 60 s the next send works and delivers a new code", async () => {
    const f = fixture();
    await send(f, "a@example.com");
    f.clock.advance(SEND_COOLDOWN_MS);
    expect(await send(f, "a@example.com")).toEqual({ sent: true, email: "a@example.com" });
    expect(f.inbox.messages()).toHaveLength(2);
  });

  it("the cooldown is per email", async () => {
    const f = fixture();
    await send(f, "a@example.com");
    expect(await send(f, "b@example.com")).toEqual({ sent: true, email: "b@example.com" });
    await expectRateLimited(send(f, "a@example.com"));
  });

  it("' A@Example.COM ' and 'a@example.com' share one cooldown and one account", async () => {
    const f = fixture();
    expect(await send(f, " A@Example.COM ")).toEqual({ sent: true, email: "a@example.com" });
    expect(f.inbox.messages()[0]?.to).toBe("a@example.com");
    await expectRateLimited(send(f, "a@example.com"));
    await expectRateLimited(send(f, "\tA@EXAMPLE.com\n"));
    const first = sessionOf(
      await f.auth.verifyMagicCode(
        { email: "a@EXAMPLE.com ", code: f.lastCode("a@example.com") },
        {},
      ),
    );
    f.clock.advance(SEND_COOLDOWN_MS);
    await send(f, "a@example.com");
    const second = sessionOf(
      await f.auth.verifyMagicCode(
        { email: " A@Example.COM ", code: f.lastCode("a@example.com") },
        {},
      ),
    );
    expect(second.user_id).toBe(first.user_id);
    const users = await f.store.systemReader().query("User", {});
    expect(users.rows.map((row) => row.email)).toEqual(["a@example.com"]);
  });

  it("two concurrent sends to one address: exactly one is delivered, the other is 429", async () => {
    const f = fixture();
    const results = await Promise.allSettled([send(f, "a@example.com"), send(f, "A@example.com")]);
    expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
    const rejected = results.find((result) => result.status === "rejected");
    expect(rejected?.reason).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    expect(f.inbox.messages()).toHaveLength(1);
  });

  it("the verification cooldown is per address as well", async () => {
    const f = fixture();
    const { context } = await f.signIn("a@example.com");
    await f.auth.sendVerification(context, { exposeDevCode: false });
    f.clock.advance(SEND_COOLDOWN_MS - 1);
    await expectRateLimited(f.auth.sendVerification(context, { exposeDevCode: false }));
    f.clock.advance(1);
    expect(await f.auth.sendVerification(context, { exposeDevCode: false })).toEqual({
      sent: true,
      email: "a@example.com",
    });
  });
});

describe.each(databases)("a failing email transport on $name", (database) => {
  const fixture = useAuthFixture(database);

  it.each([
    { thrown: "a plain Error", error: new Error("provider answered 503") },
    { thrown: "the transport's own AuthError", error: new AuthError("EMAIL_SEND_FAILED") },
  ])(
    "a send rejected with $thrown is 500 EMAIL_SEND_FAILED, and an immediate retry works",
    async ({ error }) => {
      const f = fixture();
      f.mailer.failWith = error;
      await expectAuthError(send(f, "a@example.com"), "EMAIL_SEND_FAILED", 500);
      expect(f.inbox.messages()).toEqual([]);
      f.mailer.failWith = undefined;
      expect(await send(f, "a@example.com")).toEqual({ sent: true, email: "a@example.com" });
      await f.auth.verifyMagicCode(
        { email: "a@example.com", code: f.lastCode("a@example.com") },
        {},
      );
    },
  );

  it("a failing Auth instance consumes no cooldown for a working one on the same database", async () => {
    const f = fixture();
    const broken = f.createAuth({
      email: {
        transport: rejectingTransport(new Error("connection refused")),
        from: FROM,
        devInbox: undefined,
      },
    });
    await expectAuthError(
      broken.sendMagicCode({ email: "a@example.com" }, { exposeDevCode: false }),
      "EMAIL_SEND_FAILED",
      500,
    );
    expect(await send(f, "a@example.com")).toEqual({ sent: true, email: "a@example.com" });
  });

  it("a failed resend keeps the previous code working and the retry replaces it", async () => {
    const f = fixture();
    await send(f, "a@example.com");
    const previous = f.lastCode("a@example.com");
    f.clock.advance(SEND_COOLDOWN_MS + 1000);
    f.mailer.failWith = new Error("provider down");
    await expectAuthError(send(f, "a@example.com"), "EMAIL_SEND_FAILED", 500);
    // The failed send restored the previous code.
    await f.auth.verifyMagicCode({ email: "a@example.com", code: previous }, {});
    f.mailer.failWith = undefined;
    await send(f, "a@example.com");
    await f.auth.verifyMagicCode({ email: "a@example.com", code: f.lastCode("a@example.com") }, {});
  });

  it("without any transport a send is EMAIL_SEND_FAILED", async () => {
    const f = fixture();
    const auth = f.createAuth({
      email: { transport: undefined, from: undefined, devInbox: undefined },
    });
    await expectAuthError(
      auth.sendMagicCode({ email: "a@example.com" }, { exposeDevCode: false }),
      "EMAIL_SEND_FAILED",
      500,
    );
    expect(await send(f, "a@example.com")).toEqual({ sent: true, email: "a@example.com" });
  });

  it.each([
    {
      flow: "email verification",
      run: async (f: AuthFixture) => {
        const { context } = await f.signIn("a@example.com");
        return () => f.auth.sendVerification(context, { exposeDevCode: false });
      },
    },
    {
      flow: "magic link",
      run: async (f: AuthFixture) => () =>
        f.auth.sendMagicLink(
          { email: "a@example.com" },
          { baseURL: "http://localhost:3000", trustedOrigins: [], exposeDevCode: false },
        ),
    },
  ])("a failed $flow send consumes no cooldown either", async ({ run }) => {
    const f = fixture();
    const sendIt = await run(f);
    f.mailer.failWith = new Error("provider down");
    await expectAuthError(sendIt(), "EMAIL_SEND_FAILED", 500);
    f.mailer.failWith = undefined;
    await expect(sendIt()).resolves.toMatchObject({ sent: true, email: "a@example.com" });
  });
});

describe.each(databases)("dev codes on $name", (database) => {
  const fixture = useAuthFixture(database);

  it.each([
    { devMode: false, exposeDevCode: false, exposed: false },
    { devMode: false, exposeDevCode: true, exposed: false },
    { devMode: true, exposeDevCode: false, exposed: false },
    { devMode: true, exposeDevCode: true, exposed: true },
  ])(
    "devMode $devMode with exposeDevCode $exposeDevCode shows dev_code: $exposed",
    async ({ devMode, exposeDevCode, exposed }) => {
      const f = fixture();
      const auth = f.createAuth({ devMode });
      const sent = await auth.sendMagicCode({ email: "a@example.com" }, { exposeDevCode });
      expect(sent).toEqual({
        sent: true,
        email: "a@example.com",
        ...(exposed && { dev_code: f.lastCode("a@example.com") }),
      });
    },
  );
});

// Two servers on one database: the cooldown and single use hold across
// connections (on SQLite, two connections to the same files).
describe.each(databases)("two servers on one $name database", (database) => {
  const fixture = useAuthFixture(database, { authFile: true });

  it("concurrent sends through both: exactly one is delivered", async () => {
    const f = fixture();
    const other = await f.connect();
    const results = await Promise.allSettled([
      f.auth.sendMagicCode({ email: "a@example.com" }, { exposeDevCode: false }),
      other.auth.sendMagicCode({ email: "a@example.com" }, { exposeDevCode: false }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(f.inbox.messages()).toHaveLength(1);
  });

  it("concurrent verifies of one code through both: exactly one signs in", async () => {
    const f = fixture();
    const other = await f.connect();
    await f.auth.sendMagicCode({ email: "a@example.com" }, { exposeDevCode: false });
    const code = f.lastCode("a@example.com");
    const results = await Promise.allSettled([
      f.auth.verifyMagicCode({ email: "a@example.com", code }, {}),
      other.auth.verifyMagicCode({ email: "a@example.com", code }, {}),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect(results.find((result) => result.status === "rejected")?.reason).toMatchObject({
      code: "INVALID_CODE",
    });
  });

  it("a cooldown taken on one server holds on the other", async () => {
    const f = fixture();
    const other = await f.connect();
    await f.auth.sendMagicCode({ email: "a@example.com" }, { exposeDevCode: false });
    await expectRateLimited(
      other.auth.sendMagicCode({ email: "a@example.com" }, { exposeDevCode: false }),
    );
    f.clock.advance(SEND_COOLDOWN_MS);
    await other.auth.sendMagicCode({ email: "a@example.com" }, { exposeDevCode: false });
    // The code sent through one server works on the other.
    await f.auth.verifyMagicCode({ email: "a@example.com", code: f.lastCode("a@example.com") }, {});
  });
});
