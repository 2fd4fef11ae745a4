import { createClient } from "@svc/client";
import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  type Answer,
  call,
  callFunction,
  errorCode,
  signInWithCode,
  startApp,
  type TestApp,
} from "./fixtures.js";

function projectNames(answer: Answer): string[] {
  return (answer.body as { projects: { name: string }[] }).projects.map((project) => project.name);
}

function entityNames(answer: Answer): string[] {
  return (answer.body as { name: string }[]).map((row) => row.name).sort();
}

describe.each(testDatabases())("organizations and their projects on $name", (database) => {
  let app: TestApp;
  let alice: string;
  let bob: string;
  let carol: string;
  let orgA: string;
  let orgB: string;

  const select = (token: string, orgId: string | null) =>
    call(app, "POST", "/api/auth/orgs/select", { token, body: { orgId } });

  beforeAll(async () => {
    app = await startApp(database);
    alice = await signInWithCode(app, "alice@example.com");
    bob = await signInWithCode(app, "bob@example.com");
    carol = await signInWithCode(app, "carol@example.com");
    orgA = (
      (await callFunction(app, alice, "createOrganization", { name: "Acme" })).body as {
        id: string;
      }
    ).id;
    orgB = (
      (await callFunction(app, bob, "createOrganization", { name: "Bits" })).body as { id: string }
    ).id;

    expect((await select(alice, orgA)).status).toBe(200);
    await callFunction(app, alice, "createProject", { name: "Acme rocket" });
    await callFunction(app, alice, "createProject", { name: "Acme anvil" });
    expect((await select(bob, orgB)).status).toBe(200);
    await callFunction(app, bob, "createProject", { name: "Bits compiler" });
  });

  afterAll(async () => {
    await app?.[Symbol.asyncDispose]();
  });

  it("lists the caller's organizations with their role and the active one", async () => {
    const mine = await callFunction(app, alice, "myOrganizations");
    expect(mine.body).toEqual({
      organizations: [{ id: orgA, name: "Acme", role: "owner" }],
      activeOrgId: orgA,
    });
    const orgs = await call(app, "GET", "/api/entities/Organization", { token: alice });
    expect(entityNames(orgs)).toEqual(["Acme"]);
  });

  it("shows each member only the projects of the active organization", async () => {
    expect(projectNames(await callFunction(app, alice, "listProjects"))).toEqual([
      "Acme rocket",
      "Acme anvil",
    ]);
    expect(projectNames(await callFunction(app, bob, "listProjects"))).toEqual(["Bits compiler"]);
    expect(entityNames(await call(app, "GET", "/api/entities/Project", { token: bob }))).toEqual([
      "Bits compiler",
    ]);
  });

  it("refuses to select, read or write another organization", async () => {
    const foreign = await select(alice, orgB);
    expect(foreign.status).toBe(403);
    expect(errorCode(foreign)).toBe("NOT_A_MEMBER");

    const insert = await call(app, "POST", "/api/entities/Project", {
      token: alice,
      body: { orgId: orgB, name: "Planted" },
    });
    expect(insert.status).toBe(403);
    const members = await callFunction(app, alice, "orgMembers", { orgId: orgB });
    expect(errorCode(members)).toBe("NOT_A_MEMBER");
    const invite = await callFunction(app, alice, "inviteMember", {
      orgId: orgB,
      email: "alice@example.com",
    });
    expect(errorCode(invite)).toBe("NOT_A_MEMBER");
    // Joining without an invitation, straight through the entity API, is refused too.
    const join = await call(app, "POST", "/api/entities/OrgMember", {
      token: alice,
      body: { orgId: orgB, userId: "x", role: "member", email: "alice@example.com" },
    });
    expect(join.status).toBe(403);
    expect(projectNames(await callFunction(app, bob, "listProjects"))).toEqual(["Bits compiler"]);
  });

  it("sees nothing without an active organization", async () => {
    const dave = await signInWithCode(app, "dave@example.com");
    expect(await callFunction(app, dave, "listProjects")).toMatchObject({
      status: 200,
      body: { orgId: null, projects: [] },
    });
    const create = await callFunction(app, dave, "createProject", { name: "Nowhere" });
    expect(create.status).toBe(409);
    expect(errorCode(create)).toBe("NO_ACTIVE_ORGANIZATION");
  });

  it("adds an invited member, whose view follows the organization they switch to", async () => {
    const invited = await callFunction(app, alice, "inviteMember", {
      orgId: orgA,
      email: " Carol@Example.com ",
    });
    expect(invited.body).toMatchObject({ email: "carol@example.com", role: "member" });
    const again = await callFunction(app, alice, "inviteMember", {
      orgId: orgA,
      email: "carol@example.com",
    });
    expect(errorCode(again)).toBe("ALREADY_INVITED");

    // Bob cannot see or accept Carol's invitation.
    expect(await callFunction(app, bob, "myInvitations")).toMatchObject({
      body: { invitations: [] },
    });
    const invitationId = (invited.body as { id: string }).id;
    const stolen = await callFunction(app, bob, "acceptInvitation", { id: invitationId });
    expect(errorCode(stolen)).toBe("INVITATION_NOT_FOUND");

    const carolsInvitations = await callFunction(app, carol, "myInvitations");
    expect(carolsInvitations.body).toEqual({
      invitations: [{ id: invitationId, orgId: orgA, orgName: "Acme", role: "member" }],
      emailVerified: true,
    });
    expect((await callFunction(app, carol, "acceptInvitation", { id: invitationId })).body).toEqual(
      {
        orgId: orgA,
        role: "member",
      },
    );
    expect(await callFunction(app, carol, "myInvitations")).toMatchObject({
      body: { invitations: [] },
    });

    const carolsOrg = (
      (await callFunction(app, carol, "createOrganization", { name: "Carol & Co" })).body as {
        id: string;
      }
    ).id;
    expect((await select(carol, carolsOrg)).status).toBe(200);
    await callFunction(app, carol, "createProject", { name: "Carol's garden" });
    expect(projectNames(await callFunction(app, carol, "listProjects"))).toEqual([
      "Carol's garden",
    ]);

    expect((await select(carol, orgA)).body).toEqual({ org_id: orgA, roles: ["member"] });
    expect(projectNames(await callFunction(app, carol, "listProjects"))).toEqual([
      "Acme rocket",
      "Acme anvil",
    ]);
    const members = await callFunction(app, carol, "orgMembers", { orgId: orgA });
    expect((members.body as { members: { role: string }[] }).members.map((m) => m.role)).toEqual([
      "owner",
      "member",
    ]);
    // A member is not an owner: no invitations from Carol into Acme.
    const carolInvites = await callFunction(app, carol, "inviteMember", {
      orgId: orgA,
      email: "eve@example.com",
    });
    expect(errorCode(carolInvites)).toBe("NOT_A_MEMBER");

    expect((await select(carol, null)).status).toBe(200);
    expect(projectNames(await callFunction(app, carol, "listProjects"))).toEqual([]);
    expect(projectNames(await callFunction(app, alice, "listProjects"))).not.toContain(
      "Carol's garden",
    );
  });

  it("lets only the verified owner of the invited address answer an invitation", async () => {
    const invited = await callFunction(app, alice, "inviteMember", {
      orgId: orgA,
      email: "frank@example.com",
    });
    const invitationId = (invited.body as { id: string }).id;

    // Someone registers a password account for Frank's address before Frank does.
    const squatter = createClient({ url: app.url });
    await squatter.auth.register("frank@example.com", "a long enough password");
    const token = (await squatter.token()) ?? "";
    expect((await callFunction(app, token, "myInvitations")).body).toEqual({
      invitations: [],
      emailVerified: false,
    });
    for (const name of ["acceptInvitation", "declineInvitation"]) {
      const answer = await callFunction(app, token, name, { id: invitationId });
      expect(answer.status, name).toBe(403);
      expect(errorCode(answer), name).toBe("EMAIL_NOT_VERIFIED");
    }
    // Nor by hand: no membership row, no deleting the invitation, no reply that joins.
    const join = await call(app, "POST", "/api/entities/OrgMember", {
      token,
      body: { orgId: orgA, userId: "x", role: "member", email: "frank@example.com" },
    });
    expect(join.status).toBe(403);
    const me = await call(app, "GET", "/api/auth/me", { token });
    const userId = (me.body as { user_id: string }).user_id;
    const ownJoin = await call(app, "POST", "/api/entities/OrgMember", {
      token,
      body: { orgId: orgA, userId, role: "member", email: "frank@example.com" },
    });
    expect(ownJoin.status).toBe(403);
    const withdraw = await call(app, "DELETE", `/api/entities/Invitation/${invitationId}`, {
      token,
    });
    expect(withdraw.status).toBe(403);
    const reply = await call(app, "POST", "/api/entities/InvitationReply", {
      token,
      body: { invitationId, accept: true },
    });
    expect(reply.status).toBe(201);
    const settled = await call(
      app,
      "DELETE",
      `/api/entities/InvitationReply/${(reply.body as { id: string }).id}`,
      { token },
    );
    expect(errorCode(settled)).toBe("EMAIL_NOT_VERIFIED");
    expect(errorCode(await select(token, orgA))).toBe("NOT_A_MEMBER");

    // Proving the address settles it.
    const sent = await squatter.auth.sendVerification();
    await squatter.auth.verifyEmail(sent.dev_code ?? "");
    expect((await callFunction(app, token, "acceptInvitation", { id: invitationId })).body).toEqual(
      {
        orgId: orgA,
        role: "member",
      },
    );
    expect((await select(token, orgA)).status).toBe(200);
  });

  it("declines an invitation, and lets owners withdraw theirs", async () => {
    const grace = await signInWithCode(app, "grace@example.com");
    const first = await callFunction(app, bob, "inviteMember", {
      orgId: orgB,
      email: "grace@example.com",
    });
    const firstId = (first.body as { id: string }).id;
    expect(await callFunction(app, grace, "declineInvitation", { id: firstId })).toMatchObject({
      status: 200,
      body: { orgId: orgB, declined: true },
    });
    expect(await callFunction(app, grace, "myInvitations")).toMatchObject({
      body: { invitations: [] },
    });
    expect(errorCode(await select(grace, orgB))).toBe("NOT_A_MEMBER");
    const gone = await callFunction(app, grace, "acceptInvitation", { id: firstId });
    expect(errorCode(gone)).toBe("INVITATION_NOT_FOUND");

    const second = await callFunction(app, bob, "inviteMember", {
      orgId: orgB,
      email: "grace@example.com",
    });
    const secondId = (second.body as { id: string }).id;
    const withdrawn = await call(app, "DELETE", `/api/entities/Invitation/${secondId}`, {
      token: bob,
    });
    expect(withdrawn.status).toBe(200);
    expect(await callFunction(app, grace, "myInvitations")).toMatchObject({
      body: { invitations: [] },
    });
  });

  it("refuses an invitation that misnames its organization", async () => {
    const forged = await call(app, "POST", "/api/entities/Invitation", {
      token: alice,
      body: { orgId: orgA, orgName: "Your bank", email: "victim@example.com", role: "member" },
    });
    expect(forged.status).toBe(403);
    expect(errorCode(forged)).toBe("POLICY_DENIED");
    const honest = await call(app, "POST", "/api/entities/Invitation", {
      token: alice,
      body: { orgId: orgA, orgName: "Acme", email: "victim@example.com", role: "member" },
    });
    expect(honest.status).toBe(201);
  });

  it("hands an organization to its next member when its last owner deletes their account", async () => {
    const owner = createClient({ url: app.url });
    await owner.auth.register("founder@example.com", "a long enough password");
    const org = (await owner.fn("createOrganization", { name: "Handover" })) as { id: string };
    const solo = (await owner.fn("createOrganization", { name: "Solo" })) as { id: string };
    await owner.auth.selectOrg(solo.id);
    await owner.fn("createProject", { name: "Solo project" });
    const invite = (await owner.fn("inviteMember", {
      orgId: org.id,
      email: "heir@example.com",
    })) as { id: string };
    await owner.fn("inviteMember", { orgId: solo.id, email: "never@example.com" });
    const heir = await signInWithCode(app, "heir@example.com");
    await callFunction(app, heir, "acceptInvitation", { id: invite.id });

    await owner.auth.deleteAccount();
    expect((await callFunction(app, heir, "myOrganizations")).body).toMatchObject({
      organizations: [{ id: org.id, name: "Handover", role: "owner" }],
    });
    const members = await callFunction(app, heir, "orgMembers", { orgId: org.id });
    expect((members.body as { members: { role: string }[] }).members).toHaveLength(1);
    for (const entity of ["Organization", "Project", "Invitation"]) {
      const rows = await call(app, "GET", `/api/entities/${entity}?limit=1000`, {
        token: ADMIN_TOKEN,
      });
      const left = (rows.body as { id: string; orgId?: string }[]).filter(
        (row) => row.id === solo.id || row.orgId === solo.id,
      );
      expect(left, entity).toEqual([]);
    }
  });
});
