import { adminAuth, createAuthContext } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { createJWTService } from "../src/index.js";
import { databases, expectAuthError, SECRET, useAuthFixture, userManifest } from "./fixture.js";

const orgManifest = {
  ...userManifest,
  entities: [
    ...userManifest.entities,
    {
      name: "Membership",
      fields: [
        { name: "team", type: "string" as const },
        { name: "member", type: "string" as const },
        { name: "level", type: "string" as const, optional: true },
      ],
    },
  ],
  auth: {
    org: { entity: "Membership", orgField: "team", userField: "member", roleField: "level" },
  },
};

describe.each(databases)("organizations on $name", (database) => {
  const fixture = useAuthFixture(database, { manifest: orgManifest });

  async function join(team: string, member: string, level: string | null) {
    await fixture().store.transaction(adminAuth, (tx) =>
      tx.insert("Membership", { team, member, ...(level !== null && { level }) }),
    );
  }

  it("selects an organization the user belongs to: tenantId and roles come from the membership", async () => {
    const f = fixture();
    const { token, userId, context } = await f.signIn("a@example.com");
    await join("team_1", userId, "admin");
    await join("team_1", userId, "editor");
    expect(await f.auth.selectOrg(context, { orgId: "team_1" })).toEqual({
      org_id: "team_1",
      roles: ["admin", "editor"],
    });
    const caller = await f.auth.resolveSession(token);
    expect(caller).toMatchObject({ tenantId: "team_1", roles: ["admin", "editor"] });
  });

  it("applies a membership change at once, and drops the tenant when the membership goes", async () => {
    const f = fixture();
    const { token, userId, context } = await f.signIn("a@example.com");
    await join("team_1", userId, "editor");
    await f.auth.selectOrg(context, { orgId: "team_1" });
    await join("team_1", userId, "admin");
    expect((await f.auth.resolveSession(token))?.roles).toEqual(["admin", "editor"]);
    const rows = await f.store.systemReader().query("Membership", { where: { member: userId } });
    await f.store.transaction(adminAuth, async (tx) => {
      for (const row of rows.rows) await tx.delete("Membership", row.id);
    });
    expect(await f.auth.resolveSession(token)).toMatchObject({ tenantId: null, roles: [] });
  });

  it("refuses an organization the user is not in, and clears the selection with null", async () => {
    const f = fixture();
    const { token, userId, context } = await f.signIn("a@example.com");
    await join("team_2", "someone-else", "admin");
    await expectAuthError(f.auth.selectOrg(context, { orgId: "team_2" }), "NOT_A_MEMBER", 403);
    await expectAuthError(f.auth.selectOrg(context, { orgId: 7 }), "INVALID_ORG", 400);
    await expectAuthError(f.auth.selectOrg(context, {}), "INVALID_ORG", 400);
    await join("team_1", userId, null);
    expect(await f.auth.selectOrg(context, { orgId: "team_1" })).toEqual({
      org_id: "team_1",
      roles: [],
    });
    expect(await f.auth.resolveSession(token)).toMatchObject({ tenantId: "team_1", roles: [] });
    await f.auth.selectOrg(context, { orgId: null });
    expect(await f.auth.resolveSession(token)).toMatchObject({ tenantId: null, roles: [] });
  });

  it("needs a real session: API keys, guests and JWTs are refused", async () => {
    const f = fixture();
    const { userId } = await f.signIn("a@example.com");
    const asKey = createAuthContext({ userId, via: "api-key" });
    await expectAuthError(f.auth.selectOrg(asKey, { orgId: "t" }), "API_KEY_AUTH_FORBIDDEN", 403);
    const guest = await f.auth.createGuest({});
    const guestContext = await f.auth.resolveSession(guest.token);
    if (guestContext === null) throw new Error("the guest session did not resolve");
    await expectAuthError(f.auth.selectOrg(guestContext, { orgId: "t" }), "GUEST_NOT_ALLOWED", 403);
    const asJWT = createAuthContext({ userId, via: "jwt" });
    await expectAuthError(f.auth.selectOrg(asJWT, { orgId: "t" }), "SESSION_REQUIRED", 403);
  });

  it("snapshots tenant and roles into a JWT at mint; a later role change shows in the next mint", async () => {
    const f = fixture();
    const jwtOptions = { secret: "j".repeat(40), issuer: "svc", lifetimeSecs: 600 };
    const auth = f.createAuth({ jwt: jwtOptions });
    const { token, userId, context } = await f.signIn("a@example.com", auth);
    await join("team_1", userId, "editor");
    await auth.selectOrg(context, { orgId: "team_1" });
    const first = await auth.mintJWT((await auth.resolveSession(token)) ?? context);
    await join("team_1", userId, "admin");
    const second = await auth.mintJWT((await auth.resolveSession(token)) ?? context);
    const verifier = createJWTService({ ...jwtOptions, now: f.clock.now });
    expect(verifier.verify(first.token)).toMatchObject({ tenantId: "team_1", roles: ["editor"] });
    expect(verifier.verify(second.token)).toMatchObject({
      tenantId: "team_1",
      roles: ["admin", "editor"],
    });
  });
});

describe.each(databases)("organizations without a membership entity on $name", (database) => {
  const fixture = useAuthFixture(database);

  it("answers 501 MEMBERSHIP_UNAVAILABLE", async () => {
    const f = fixture();
    const { context } = await f.signIn("a@example.com");
    await expectAuthError(
      f.auth.selectOrg(context, { orgId: "team_1" }),
      "MEMBERSHIP_UNAVAILABLE",
      501,
    );
  });
});

it("keeps the fixture's secret long enough for createAuth", () => {
  expect(SECRET.length).toBeGreaterThanOrEqual(32);
});
