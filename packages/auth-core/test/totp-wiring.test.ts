import { afterEach, describe, expect, it, vi } from "vitest";
import { databases, expectAuthError, sessionOf, totpCodeAt, useAuthFixture } from "./fixture.js";

const PASSWORD = "a long enough password";

afterEach(() => {
  vi.useRealTimers();
});

describe.each(databases)("TOTP wired into createAuth on $name", (database) => {
  const fixture = useAuthFixture(database);

  async function enrolled() {
    const f = fixture();
    const signedUp = await f.auth.registerPassword(
      { email: "t@example.com", password: PASSWORD },
      {},
    );
    const context = await f.auth.resolveSession(sessionOf(signedUp).token);
    if (context === null) throw new Error("the new session did not resolve");
    const { secret } = await f.auth.totp.enroll(context);
    await f.auth.totp.confirm(context, { code: totpCodeAt(secret, f.clock.now()) });
    f.clock.advance(30_000);
    return { f, secret, userId: context.userId ?? "" };
  }

  it("a password sign-in asks for the second factor, and the code finishes it", async () => {
    const { f, secret } = await enrolled();
    const answer = await f.auth.loginPassword({ email: "t@example.com", password: PASSWORD }, {});
    expect(answer).toMatchObject({
      second_factor_required: true,
      methods: ["totp", "backup_code"],
    });
    if (!("challenge" in answer)) throw new Error("expected a challenge");
    const done = await f.auth.totp.verifyChallenge(
      { challenge: answer.challenge, code: totpCodeAt(secret, f.clock.now()) },
      {},
    );
    expect(await f.auth.resolveSession(done.token)).toMatchObject({ via: "session" });
  });

  it("a changed deployment secret makes the factor unreadable (500 TOTP_UNREADABLE) until an admin resets it", async () => {
    const { f, secret, userId } = await enrolled();
    const rotated = f.createAuth({ secret: "another deployment secret, long enough" });
    const answer = await rotated.loginPassword({ email: "t@example.com", password: PASSWORD }, {});
    if (!("challenge" in answer)) throw new Error("expected a challenge");
    await expectAuthError(
      rotated.totp.verifyChallenge(
        { challenge: answer.challenge, code: totpCodeAt(secret, f.clock.now()) },
        {},
      ),
      "TOTP_UNREADABLE",
      500,
    );
    expect(await rotated.resetTotp(userId)).toEqual({ reset: true });
    const again = await rotated.loginPassword({ email: "t@example.com", password: PASSWORD }, {});
    expect("token" in again).toBe(true);
  });

  it("reset empties the TOTP tables with the others", async () => {
    const { f } = await enrolled();
    await f.auth.reset();
    for (const table of ["svc_totp", "svc_backup_codes", "svc_totp_challenges"] as const) {
      const rows = await f.accountTables
        .selectFrom(table as never)
        .selectAll()
        .execute();
      expect(rows).toEqual([]);
    }
  });
});
