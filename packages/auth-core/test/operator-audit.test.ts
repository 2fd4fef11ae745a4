import { adminAuth } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { type OperatorAuditKind, operatorAuditKinds } from "../src/index.js";
import { databases, useAuthFixture } from "./fixture.js";

// An operator tool's audit events (the admin studio's): written with no
// user, listed to the admin token only, and, inside a store transaction,
// committed or rolled back with its writes.

const PASSWORD = "a good long password";

describe.each(databases)("operator audit events on $name", (database) => {
  const fixture = useAuthFixture(database);

  it("records an event with the tool as the actor, seen by the admin token only", async () => {
    const { auth } = fixture();
    await auth.recordOperatorAudit({
      kind: "StudioEdit",
      data: { actor: "studio", action: "update", entity: "User", row_id: "r1", fields: ["name"] },
      ip: "203.0.113.9",
    });
    const { events } = await auth.listAudit(adminAuth, { kind: "StudioEdit" });
    expect(events).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        user_id: null,
        kind: "StudioEdit",
        at: new Date(fixture().clock.now()).toISOString(),
        data: { actor: "studio", action: "update", entity: "User", row_id: "r1", fields: ["name"] },
        ip: "203.0.113.9",
      },
    ]);
    // A user's own audit log never shows the tool's events.
    const user = await auth.registerPassword({ email: "ada@example.com", password: PASSWORD }, {});
    const context = await auth.resolveSession(user.token);
    if (context === null) throw new Error("the session did not resolve");
    const own = await auth.listAudit(context, {});
    expect(own.events.map((event) => event.kind)).not.toContain("StudioEdit");
  });

  it("commits with the transaction it is written in, and rolls back with it", async () => {
    const { auth, store } = fixture();
    await store.frameworkTransaction(adminAuth, async ({ entities, db }) => {
      const row = await entities.insert("User", { email: "kept@example.com" });
      await auth.recordOperatorAudit(
        { kind: "StudioEdit", data: { action: "insert", entity: "User", row_id: row.id } },
        db,
      );
    });
    await expect(
      store.frameworkTransaction(adminAuth, async ({ entities, db }) => {
        const row = await entities.insert("User", { email: "lost@example.com" });
        await auth.recordOperatorAudit(
          { kind: "StudioEdit", data: { action: "insert", entity: "User", row_id: row.id } },
          db,
        );
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    const { events } = await auth.listAudit(adminAuth, { kind: "StudioEdit" });
    expect(events).toHaveLength(1);
    const [kept] = (await store.reader(adminAuth).query("User")).rows;
    expect(events[0]?.data).toEqual({ action: "insert", entity: "User", row_id: kept?.id });
  });

  it("writes only the operator kinds", async () => {
    const { auth } = fixture();
    expect([...operatorAuditKinds].sort()).toEqual([
      "StudioEdit",
      "StudioFunctionRun",
      "StudioJob",
      "StudioLiveClose",
      "StudioSignIn",
    ]);
    await expect(
      auth.recordOperatorAudit({ kind: "SignIn" as OperatorAuditKind, data: {} }),
    ).rejects.toThrow(TypeError);
    expect((await auth.listAudit(adminAuth, {})).events).toEqual([]);
  });
});
