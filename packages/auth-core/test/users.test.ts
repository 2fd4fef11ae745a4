import { ConfigError, type ManifestInput, parseManifest } from "@svc/schema";
import type { ChangeEvent } from "@svc/store";
import { thrownBy } from "@svc/tooling/thrown";
import { describe, expect, it } from "vitest";
import { checkUserEntity, createAuth, SEND_COOLDOWN_MS } from "../src/index.js";
import {
  type AuthFixture,
  databases,
  expectAuthError,
  SECRET,
  START,
  sessionOf,
  useAuthFixture,
} from "./fixture.js";

// How sign-in meets the application's User rows: created once, stamped with
// emailVerified, written through the store (so change events fire), and
// the boot check of the User entity.

const PASSWORD = "a good long password";

function recordChanges(f: AuthFixture): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  f.store.onChange((batch) => {
    events.push(...batch);
  });
  return events;
}

describe.each(databases)("User rows on $name", (database) => {
  const fixture = useAuthFixture(database);

  it("a magic verify creates the User row once, verified, with one insert event; the next sign-in reuses it", async () => {
    const f = fixture();
    const events = recordChanges(f);
    const first = await f.signIn("a@example.com");
    const verifiedAt = f.clock.iso();
    expect(events).toEqual([
      {
        entity: "User",
        op: "insert",
        id: first.userId,
        row: expect.objectContaining({
          id: first.userId,
          email: "a@example.com",
          emailVerified: verifiedAt,
        }),
        previous: null,
      },
    ]);
    f.clock.advance(SEND_COOLDOWN_MS);
    const second = await f.signIn("a@example.com");
    expect(second.userId).toBe(first.userId);
    expect(events).toHaveLength(1);
    const users = await f.store.systemReader().query("User", {});
    expect(users.rows).toEqual([
      expect.objectContaining({ id: first.userId, emailVerified: verifiedAt }),
    ]);
  });

  it("a magic link sign-in creates the same verified User row", async () => {
    const f = fixture();
    const events = recordChanges(f);
    await f.auth.sendMagicLink(
      { email: "a@example.com" },
      { baseURL: "http://localhost:3000", trustedOrigins: [], exposeDevCode: false },
    );
    const token = f.lastLink("a@example.com").searchParams.get("token");
    const { user_id } = sessionOf(
      await f.auth.verifyMagicLink({ email: "a@example.com", token }, {}),
    );
    expect(events.map(({ op, row }) => [op, row?.id, row?.emailVerified])).toEqual([
      ["insert", user_id, f.clock.iso()],
    ]);
  });

  it("a magic-code sign-in stamps emailVerified on an unverified password user (one update event)", async () => {
    const f = fixture();
    const events = recordChanges(f);
    const registered = await f.auth.registerPassword(
      { email: "a@example.com", password: PASSWORD },
      {},
    );
    expect(events).toEqual([
      expect.objectContaining({ entity: "User", op: "insert", id: registered.user_id }),
    ]);
    expect(events[0]?.row?.emailVerified ?? null).toBeNull();
    f.clock.advance(5_000);
    const signedIn = await f.signIn("A@example.com");
    expect(signedIn.userId).toBe(registered.user_id);
    expect(events.slice(1)).toEqual([
      expect.objectContaining({
        entity: "User",
        op: "update",
        id: registered.user_id,
        row: expect.objectContaining({ emailVerified: f.clock.iso() }),
      }),
    ]);
    expect(events[1]?.previous?.emailVerified ?? null).toBeNull();
    // The code proved the address, not the password: it no longer signs in
    // (account pre-hijacking; test/account-claim.test.ts has the rest).
    await expectAuthError(
      f.auth.loginPassword({ email: "a@example.com", password: PASSWORD }, {}),
      "INVALID_CREDENTIALS",
    );
  });

  it("email verification takes an unverified user to verified, stamped with the clock", async () => {
    const f = fixture();
    const registered = await f.auth.registerPassword(
      { email: "a@example.com", password: PASSWORD },
      {},
    );
    const context = await f.auth.resolveSession(registered.token);
    if (context === null) throw new Error("a fresh session did not resolve");
    expect(await f.auth.sendVerification(context, { exposeDevCode: false })).toEqual({
      sent: true,
      email: "a@example.com",
    });
    expect(f.inbox.messages()[0]).toMatchObject({
      to: "a@example.com",
      subject: "Verify your email address",
    });
    f.clock.advance(90_000);
    const events = recordChanges(f);
    const verified = await f.auth.verifyEmail(context, { code: f.lastCode("a@example.com") });
    const stamp = new Date(START + 90_000).toISOString().replace(".000Z", "Z");
    expect(verified).toEqual({ verified: true, emailVerified: stamp });
    expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(await f.store.systemReader().get("User", registered.user_id)).toMatchObject({
      emailVerified: stamp,
    });
    expect(events.map(({ op, row }) => [op, row?.emailVerified])).toEqual([["update", stamp]]);
  });

  it("emailVerified drops the clock's milliseconds", async () => {
    const f = fixture();
    f.clock.set(START + 999);
    const { userId } = await f.signIn("a@example.com");
    expect(await f.store.systemReader().get("User", userId)).toMatchObject({
      emailVerified: new Date(START).toISOString().replace(".000Z", "Z"),
    });
  });

  it("a verified user keeps its first emailVerified on later sign-ins", async () => {
    const f = fixture();
    const { userId } = await f.signIn("a@example.com");
    const first = f.clock.iso();
    f.clock.advance(24 * 60 * 60 * 1000);
    await f.signIn("a@example.com");
    expect(await f.store.systemReader().get("User", userId)).toMatchObject({
      emailVerified: first,
    });
  });

  it("a phone sign-in finds the user by phone and leaves emailVerified unset", async () => {
    const f = fixture();
    const user = await f.insertUser({ email: "a@example.com", phone: "+14155550100" });
    const auth = f.createAuth({ sms: f.inbox });
    await auth.sendPhoneCode({ phone: "+1 (415) 555-0100" }, { exposeDevCode: false });
    const { user_id } = sessionOf(
      await auth.verifyPhoneCode(
        { phone: "+1.415.555.0100", code: f.lastCode("+14155550100") },
        {},
      ),
    );
    expect(user_id).toBe(user.id);
    expect((await f.store.systemReader().get("User", user.id))?.emailVerified ?? null).toBeNull();
  });

  it("two concurrent verifies of the same right code: exactly one signs in", async () => {
    const f = fixture();
    const events = recordChanges(f);
    await f.auth.sendMagicCode({ email: "a@example.com" }, { exposeDevCode: false });
    const code = f.lastCode("a@example.com");
    const results = await Promise.allSettled([
      f.auth.verifyMagicCode({ email: "a@example.com", code }, {}),
      f.auth.verifyMagicCode({ email: "a@example.com", code }, {}),
    ]);
    const won = results.filter((result) => result.status === "fulfilled");
    const lost = results.filter((result) => result.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost.map((result) => result.reason)).toEqual([
      expect.objectContaining({ code: "INVALID_CODE", status: 401 }),
    ]);
    expect(events.map(({ op }) => op)).toEqual(["insert"]);
    const sessions = await f.tables.selectFrom("svc_sessions").select("id").execute();
    expect(sessions).toHaveLength(1);
  });

  it("a code and a link verified at once for a new address make one User, both signed in", async () => {
    const f = fixture();
    await f.auth.sendMagicCode({ email: "a@example.com" }, { exposeDevCode: false });
    const code = f.lastCode("a@example.com");
    await f.auth.sendMagicLink(
      { email: "a@example.com" },
      { baseURL: "http://localhost:3000", trustedOrigins: [], exposeDevCode: false },
    );
    const token = f.lastLink("a@example.com").searchParams.get("token");
    const [byCode, byLink] = await Promise.all([
      f.auth.verifyMagicCode({ email: "a@example.com", code }, {}),
      f.auth.verifyMagicLink({ email: "a@example.com", token }, {}),
    ]);
    expect(sessionOf(byLink).user_id).toBe(sessionOf(byCode).user_id);
    expect((await f.store.systemReader().query("User", {})).rows).toHaveLength(1);
  });
});

type EntityInput = NonNullable<ManifestInput["entities"]>[number];

const userWith = (
  fields: EntityInput["fields"],
  indexes?: EntityInput["indexes"],
): ManifestInput => ({
  manifest_version: 1,
  name: "user-check",
  version: "1",
  entities: [{ name: "User", fields, ...(indexes !== undefined && { indexes }) }],
});

const refused: readonly { name: string; manifest: ManifestInput; variable: string }[] = [
  {
    name: "no email field",
    manifest: userWith([{ name: "name", type: "string", optional: true }]),
    variable: "User.email",
  },
  {
    name: "an email that is not unique",
    manifest: userWith([{ name: "email", type: "string" }]),
    variable: "User.email",
  },
  {
    name: "an email that is not a string",
    manifest: userWith([{ name: "email", type: "int", unique: true }]),
    variable: "User.email",
  },
  {
    name: "an email unique only together with another field",
    manifest: userWith(
      [
        { name: "email", type: "string" },
        { name: "tenant", type: "string", optional: true },
      ],
      [{ name: "by_email_tenant", fields: ["email", "tenant"], unique: true }],
    ),
    variable: "User.email",
  },
  // Beside a valid email, one field the sign-in flows cannot fill or use.
  ...(
    [
      ["a required string without default", { name: "name", type: "string" }],
      ["a required datetime without defaultNow", { name: "joinedAt", type: "datetime" }],
      ["a required bool", { name: "admin", type: "bool" }],
      ["an emailVerified that is an int", { name: "emailVerified", type: "int", optional: true }],
    ] as const
  ).map(([name, field]) => ({
    name,
    manifest: userWith([{ name: "email", type: "string", unique: true }, field]),
    variable: `User.${field.name}`,
  })),
];

const accepted: readonly {
  name: string;
  manifest: ManifestInput;
  info: ReturnType<typeof checkUserEntity>;
}[] = [
  {
    name: "email unique through a one-field unique index",
    manifest: userWith(
      [{ name: "email", type: "string" }],
      [{ name: "by_email", fields: ["email"], unique: true }],
    ),
    info: { hasEmailVerified: false, hasPhone: false, emailOptional: false, profileFields: {} },
  },
  {
    name: "a required datetime with defaultNow, a datetime emailVerified and a phone",
    manifest: userWith([
      { name: "email", type: "string", unique: true },
      { name: "joinedAt", type: "datetime", defaultNow: true },
      { name: "emailVerified", type: "datetime", optional: true },
      { name: "phone", type: "string", optional: true },
    ]),
    info: { hasEmailVerified: true, hasPhone: true, emailOptional: false, profileFields: {} },
  },
  {
    name: "an optional email",
    manifest: userWith([{ name: "email", type: "string", unique: true, optional: true }]),
    info: { hasEmailVerified: false, hasPhone: false, emailOptional: true, profileFields: {} },
  },
];

describe.each(databases)("checkUserEntity through createAuth on $name", (database) => {
  const fixture = useAuthFixture(database);

  it.each(refused)(
    "refuses $name with a ConfigError naming $variable",
    ({ manifest, variable }) => {
      const f = fixture();
      const errors = [
        thrownBy(ConfigError, () => checkUserEntity(parseManifest(manifest))),
        thrownBy(ConfigError, () =>
          createAuth({ store: f.storeFor(manifest), database: f.database, secret: SECRET }),
        ),
      ];
      for (const error of errors) {
        expect(error).toBeInstanceOf(ConfigError);
        expect(error.variable).toBe(variable);
        expect(error.message.startsWith(`${variable}: `)).toBe(true);
      }
    },
  );

  it.each(accepted)("accepts $name", ({ manifest, info }) => {
    const f = fixture();
    expect(checkUserEntity(parseManifest(manifest))).toEqual(info);
    expect(() =>
      createAuth({ store: f.storeFor(manifest), database: f.database, secret: SECRET }),
    ).not.toThrow();
  });

  it("accepts a manifest without User (guest-only) and refuses a short secret", () => {
    const f = fixture();
    const guestOnly: ManifestInput = {
      manifest_version: 1,
      name: "guests",
      version: "1",
      entities: [{ name: "Note", fields: [{ name: "text", type: "string" }] }],
    };
    expect(checkUserEntity(parseManifest(guestOnly))).toBeUndefined();
    expect(() =>
      createAuth({ store: f.storeFor(guestOnly), database: f.database, secret: SECRET }),
    ).not.toThrow();
    expect(() =>
      createAuth({ store: f.store, database: f.database, secret: "x".repeat(31) }),
    ).toThrow(TypeError);
  });
});
