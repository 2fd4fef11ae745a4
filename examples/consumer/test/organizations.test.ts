import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
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
});
