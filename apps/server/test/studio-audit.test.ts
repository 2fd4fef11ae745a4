import type { AuditEvent } from "@svc/auth-core";
import { adminAuth } from "@svc/store";
import { testDatabases } from "@svc/tooling/databases";
import { beforeEach, describe, expect, it } from "vitest";
import { isSecretLooking } from "../src/studio/studio-audit.js";
import { type AuthTestServer, readJSON } from "./auth-fixtures.js";
import { adminRequest } from "./fixtures.js";
import { alertOf, type StudioClient, studioPerTest, textOf } from "./studio-fixtures.js";

// Every action taken in the studio is an audit event with the studio as
// the actor (no user id): sign-in, row insert / update / delete (in the
// write's own transaction: a refused write records nothing), function
// runs (never their arguments), job retry and cancel. Values of
// secret-looking fields never reach the log.

describe("isSecretLooking", () => {
  it.each([
    "password",
    "passwordHash",
    "password_hash",
    "apiKey",
    "api_key",
    "accessToken",
    "refresh-token",
    "clientSecret",
    "pin",
    "pinCode",
    "totpSecret",
    "otp",
    "salt",
    "privateKey",
    "cardNumber",
    "credentials",
  ])("redacts %s", (name) => {
    expect(isSecretLooking(name)).toBe(true);
  });

  it.each(["title", "spinner", "footprint", "classname", "ownerId", "keyboardLayout", "monkey"])(
    "keeps %s",
    (name) => {
      expect(isSecretLooking(name)).toBe(false);
    },
  );
});

describe.each(testDatabases())("studio actions in the audit log on $name", (database) => {
  const app = studioPerTest(database);
  let server: AuthTestServer;
  let studio: StudioClient;

  beforeEach(() => {
    ({ server, studio } = app);
  });

  /** The audit events of `kind`, oldest first, as the admin API lists them. */
  async function events(kind: string): Promise<AuditEvent[]> {
    const answer = await readJSON<{ events: AuditEvent[] }>(
      adminRequest(server, "GET", `/api/auth/audit?kind=${kind}`),
    );
    expect(answer.status).toBe(200);
    return [...answer.body.events].reverse();
  }

  it("records the sign-in, and each insert, update and delete with the fields written", async () => {
    const [signIn] = await events("StudioSignIn");
    expect(signIn).toMatchObject({
      user_id: null,
      data: { actor: "studio", studio_session: expect.stringMatching(/^[0-9a-f]{16}$/) },
      ip: expect.any(String),
    });
    const session = signIn?.data.studio_session;

    await studio.get("/studio/entities/Note/new");
    const form = { title: "audited", count: "1", done: "false", tag: "red", ownerId: "owner-1" };
    const inserted = await studio.post("/studio/entities/Note/new", form);
    expect(inserted.status).toBe(303);
    // The server's clock is frozen: events of one millisecond come in no set order.
    server.clock.advance(1);
    const id = new URL(inserted.location ?? "", server.url).searchParams.get("value") ?? "";
    // The whole form again, three of its fields changed.
    const edited = await studio.post(`/studio/entities/Note/rows/${id}`, {
      ...form,
      title: "audited twice",
      count: "2",
      meta: '{"big": "json"}',
    });
    expect(edited.status).toBe(303);
    server.clock.advance(1);
    // An edit that changes nothing writes nothing, and records nothing.
    await studio.post(`/studio/entities/Note/rows/${id}`, { title: "audited twice" });
    expect((await studio.post(`/studio/entities/Note/rows/${id}/delete`)).status).toBe(303);

    const edits = await events("StudioEdit");
    expect(edits.map((event) => [event.user_id, event.data.action])).toEqual([
      [null, "insert"],
      [null, "update"],
      [null, "delete"],
    ]);
    expect(edits[0]?.data).toEqual({
      actor: "studio",
      studio_session: session,
      action: "insert",
      entity: "Note",
      row_id: id,
      fields: ["title", "count", "done", "tag", "ownerId"],
    });
    expect(edits[1]?.data).toEqual({
      actor: "studio",
      studio_session: session,
      action: "update",
      entity: "Note",
      row_id: id,
      fields: ["title", "count", "meta"],
      changes: {
        title: { from: "audited", to: "audited twice" },
        count: { from: 1, to: 2 },
        // JSON only as a marker: it may hold anything.
        meta: { from: null, to: "[json]" },
      },
    });
    expect(edits[2]?.data).toEqual({
      actor: "studio",
      studio_session: session,
      action: "delete",
      entity: "Note",
      row_id: id,
    });

    // The Audit page says it in words, the studio as the actor.
    const page = await studio.get("/studio/audit?kind=StudioEdit");
    expect(page.status).toBe(200);
    expect(page.html).toContain('<span class="badge" title="The admin studio">studio</span>');
    expect(textOf(page.html)).toContain("update Note");
    expect(page.html).toContain(`<a href="/studio/entities/Note/rows/${id}">`);
    expect(page.html).toContain("title: audited → audited twice");
    expect(page.html).toContain('<span class="total">3 events</span>');
  });

  it("records nothing for a write the store refuses (the event is in the write's transaction)", async () => {
    const refusedInsert = await studio.post("/studio/entities/Note/new", { title: "no owner" });
    expect(refusedInsert.status).toBe(400);
    const note = await server.store.transaction(adminAuth, (tx) =>
      tx.insert("Note", { title: "kept", count: 1, done: false, tag: "red", ownerId: "o" }),
    );
    const refusedEdit = await studio.post(`/studio/entities/Note/rows/${note.id}`, {
      title: "typed",
      tag: "green",
    });
    expect(alertOf(refusedEdit)?.code).toBe("INVALID_FIELD");
    expect(await events("StudioEdit")).toEqual([]);
  });

  it("never records the value of a secret-looking field", async () => {
    const secret = "tok_live_do_not_log_me";
    const list = await server.store.transaction(adminAuth, (tx) =>
      tx.insert("List", { name: "Shared", accessToken: "tok_old_secret" }),
    );
    const saved = await studio.post(`/studio/entities/List/rows/${list.id}`, {
      name: "Shared list",
      accessToken: secret,
    });
    expect(saved.status).toBe(303);
    const [edit] = await events("StudioEdit");
    expect(edit?.data.changes).toEqual({
      name: { from: "Shared", to: "Shared list" },
      accessToken: { from: "[redacted]", to: "[redacted]" },
    });
    const everything = await (await adminRequest(server, "GET", "/api/auth/audit")).text();
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain("tok_old_secret");
    expect((await studio.get("/studio/audit")).html).not.toContain(secret);
  });

  it("records function runs without their arguments, and job retries and cancels", async () => {
    const ran = await studio.post("/studio/functions", {
      name: "echo",
      args: JSON.stringify({ password: "hunter2" }),
    });
    expect(ran.status).toBe(200);
    server.clock.advance(1);
    await studio.post("/studio/functions", { name: "refuse", args: "{}" });
    // An unknown name is not recorded (it names nothing).
    await studio.post("/studio/functions", { name: "nope", args: "{}" });
    const runs = await events("StudioFunctionRun");
    expect(runs.map((event) => event.data)).toEqual([
      expect.objectContaining({ actor: "studio", function: "echo", outcome: "ok" }),
      expect.objectContaining({ actor: "studio", function: "refuse", outcome: "REFUSED" }),
    ]);
    expect(JSON.stringify(runs)).not.toContain("hunter2");

    const later = await studio.post("/studio/functions", { name: "scheduleLater", args: "{}" });
    const result = /<pre class="result">([\s\S]*?)<\/pre>/.exec(later.html)?.[1] ?? "";
    const jobId = (JSON.parse(textOf(result)) as { jobId: string }).jobId;
    expect((await studio.post(`/studio/jobs/${jobId}/cancel`)).status).toBe(303);
    // A refused action records nothing.
    expect((await studio.post(`/studio/jobs/${jobId}/cancel`)).status).toBe(409);
    const jobs = await events("StudioJob");
    expect(jobs.map((event) => event.data)).toEqual([
      expect.objectContaining({ action: "cancel", job_id: jobId, job: "refuse" }),
    ]);
    const page = await studio.get("/studio/audit?kind=StudioJob");
    expect(textOf(page.html)).toContain("cancel job");
  });
});
