import { describe, expect, it } from "vitest";
import { type AuthTables, accountTableNames, sessionTableNames } from "../src/index.js";
import { type AuthFixture, databases, sessionOf, sha256Hex, useAuthFixture } from "./fixture.js";

// Nothing a client could sign in with is stored as it is: sessions keep the
// SHA-256 of the token, codes and links an HMAC, passwords an argon2id hash.

const PHC = /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;
const HEX = /^[0-9a-f]+$/;

async function everyValue(f: AuthFixture): Promise<Record<keyof AuthTables, unknown[]>> {
  const dump = {} as Record<keyof AuthTables, unknown[]>;
  for (const table of sessionTableNames) {
    const rows = await f.tables.selectFrom(table).selectAll().execute();
    dump[table] = rows.flatMap((row) => Object.values(row));
  }
  for (const table of accountTableNames) {
    const rows = await f.accountTables.selectFrom(table).selectAll().execute();
    dump[table] = rows.flatMap((row) => Object.values(row));
  }
  return dump;
}

/**
 * Whether a stored value holds a 6-digit code. Numbers are times and
 * counters (a timestamp's digits or a zero counter may match a code by
 * chance), and a code could appear by chance inside a 64-character hex
 * digest (once in about 300,000 rows), so digests are compared whole and
 * other text is searched: deterministic, and still catches a stored code.
 */
function holdsCode(value: unknown, code: string): boolean {
  if (typeof value !== "string") return false;
  return HEX.test(value) && value.length >= 32 ? value === code : value.includes(code);
}

describe.each(databases)("secrets at rest on $name", (database) => {
  const fixture = useAuthFixture(database);

  it("no column of svc_sessions, svc_codes or svc_passwords holds a token, code or password", async () => {
    const f = fixture();
    const password = "correct horse battery staple";
    const registered = await f.auth.registerPassword({ email: "p@example.com", password }, {});
    const loggedIn = sessionOf(
      await f.auth.loginPassword({ email: "p@example.com", password }, {}),
    );
    const magic = await f.signIn("m@example.com");
    const magicCode = f.lastCode("m@example.com");
    const guest = await f.auth.createGuest({});
    // Outstanding (unused) secrets: a verification code and a magic link.
    await f.auth.sendVerification(magic.context, { exposeDevCode: false });
    const verifyCode = f.lastCode("m@example.com");
    await f.auth.sendMagicLink(
      { email: "l@example.com" },
      { baseURL: "http://localhost:3000", trustedOrigins: [], exposeDevCode: false },
    );
    const linkToken = f.lastLink("l@example.com").searchParams.get("token") ?? "";
    expect(linkToken).not.toBe("");

    const tokens = [registered.token, loggedIn.token, magic.token, guest.token, linkToken];
    const dump = await everyValue(f);
    expect(dump.svc_sessions.length).toBeGreaterThan(0);
    expect(dump.svc_codes.length).toBeGreaterThan(0);
    expect(dump.svc_passwords.length).toBeGreaterThan(0);
    for (const table of ["svc_sessions", "svc_codes", "svc_passwords"] as const) {
      for (const stored of dump[table]) {
        const value = String(stored);
        for (const token of tokens) expect(value, table).not.toContain(token);
        // Neither the token without its prefix.
        for (const token of tokens) expect(value, table).not.toContain(token.replace(/^svc_/, ""));
        expect(value, table).not.toContain(password);
        expect(holdsCode(stored, magicCode), `${table}: ${value}`).toBe(false);
        expect(holdsCode(stored, verifyCode), `${table}: ${value}`).toBe(false);
      }
    }

    const sessions = await f.tables.selectFrom("svc_sessions").select("id").execute();
    expect(sessions.map((row) => row.id).sort()).toEqual(
      [registered.token, loggedIn.token, magic.token, guest.token].map(sha256Hex).sort(),
    );
    const codes = await f.tables.selectFrom("svc_codes").select("code_hash").execute();
    for (const { code_hash } of codes) {
      expect(code_hash).toMatch(/^[0-9a-f]{64}$/);
      // Not an unkeyed digest of the secret either.
      for (const secret of [magicCode, verifyCode, linkToken]) {
        expect(code_hash).not.toBe(sha256Hex(secret));
      }
    }
    const passwords = await f.accountTables.selectFrom("svc_passwords").select("hash").execute();
    expect(passwords).toHaveLength(1);
    expect(passwords[0]?.hash).toMatch(PHC);
  });
});
