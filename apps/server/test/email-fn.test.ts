import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { adminAuth } from "@svc/schema";
import { testDatabases } from "@svc/tooling/databases";
import { beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config.js";
import { appServerPerTest, startTestServerOn } from "./app-server.js";
import { errorOf, readJSON } from "./auth-fixtures.js";
import { ADMIN_TOKEN, adminRequest, startTestServer, tempDir } from "./fixtures.js";
import { entity, testManifest, writeTestApp } from "./test-app.js";

// ctx.email through the composed server with the real `webhook` provider
// pointed at a loopback HTTP server, on every database: a mutation's email
// goes out after the commit, a failing mutation sends nothing, a transport
// failure in an action is the EMAIL_SEND_FAILED envelope, and header
// injection is refused before anything is sent.

/** An app whose functions send email; Notes have no policy (admin token only). */
function writeApp(dir: string): string {
  const manifest = testManifest("email-app", {
    entities: [entity("Note", { body: "string" })],
  });
  return writeTestApp(dir, manifest, {
    noteAndMail: `export default {
  type: "mutation",
  handler: async (ctx, args) => {
    const note = await ctx.db.insert("Note", { body: args.body });
    await ctx.email.send({ to: args.to, subject: args.subject, text: "Note: " + args.body });
    if (args.fail) ctx.error("ROLLED_BACK", "The mutation failed after sending.");
    return { id: note.id };
  },
};
`,
    mailNow: `export default {
  type: "action",
  handler: async (ctx, args) => {
    await ctx.email.send({ to: args.to, subject: args.subject, text: "Now" });
    return { sent: true };
  },
};
`,
  });
}

interface Captured {
  readonly authorization: string | undefined;
  readonly body: { to: string; from: string; subject: string; body: string };
  /** The Note bodies committed when the POST arrived. */
  readonly committed: string[];
}

/** A loopback mail webhook that records each POST with what was committed at that moment. */
async function startMailWebhook(readCommitted: () => Promise<string[]>) {
  const captured: Captured[] = [];
  const state = { status: 200 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      captured.push({
        authorization: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Captured["body"],
        committed: await readCommitted(),
      });
      res.writeHead(state.status, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1" }, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/send`,
    captured,
    state,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.each(testDatabases())("ctx.email through the server on $name", (database) => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let webhook: Awaited<ReturnType<typeof startMailWebhook>>;

  const committedNotes = async (): Promise<string[]> =>
    (await server.store.reader(adminAuth).query("Note", {})).rows.map((row) => String(row.body));

  // Cleanups run last first: the webhook outlives the server.
  beforeEach(async () => {
    webhook = await startMailWebhook(committedNotes);
    return () => webhook[Symbol.asyncDispose]();
  });
  // The server's own clock: mail goes out in real time.
  const app = appServerPerTest(database, {
    writeApp,
    start: startTestServerOn,
    env: () => ({
      SVC_EMAIL_PROVIDER: "webhook",
      SVC_EMAIL_ENDPOINT: webhook.url,
      SVC_EMAIL_API_KEY: "mail-key",
      SVC_EMAIL_FROM: "App <app@example.com>",
    }),
  });

  beforeEach(() => {
    server = app.server;
  });

  it("sends a mutation's email after its transaction committed, one POST per recipient", async () => {
    const answer = await readJSON<{ id: string }>(
      adminRequest(server, "POST", "/api/fn/noteAndMail", {
        body: "milk",
        to: ["ada@example.com", "bob@example.com"],
        subject: "New note",
      }),
    );
    expect(answer.status).toBe(200);
    expect(webhook.captured).toEqual(
      ["ada@example.com", "bob@example.com"].map((to) => ({
        authorization: "Bearer mail-key",
        body: { to, from: "App <app@example.com>", subject: "New note", body: "Note: milk" },
        committed: ["milk"],
      })),
    );
  });

  it("sends nothing when the mutation fails after calling send, and writes nothing", async () => {
    const failed = await errorOf(
      adminRequest(server, "POST", "/api/fn/noteAndMail", {
        body: "milk",
        to: "ada@example.com",
        subject: "New note",
        fail: true,
      }),
    );
    expect(failed).toMatchObject({ status: 400, code: "ROLLED_BACK" });
    expect(webhook.captured).toEqual([]);
    expect(await committedNotes()).toEqual([]);
  });

  it("answers EMAIL_SEND_FAILED when the provider rejects an action's send", async () => {
    webhook.state.status = 503;
    const failed = await errorOf(
      adminRequest(server, "POST", "/api/fn/mailNow", { to: "ada@example.com", subject: "Hi" }),
    );
    expect(failed).toMatchObject({
      status: 500,
      code: "EMAIL_SEND_FAILED",
      message: "The email could not be sent; try again.",
    });
    expect(webhook.captured).toHaveLength(1);
  });

  it.each([
    ["subject", { to: "ada@example.com", subject: "Hi\r\nBcc: eve@evil.test" }],
    ["address", { to: "ada@example.com\r\nBcc: eve@evil.test", subject: "Hi" }],
  ])(
    "refuses a header injection in the %s with INVALID_EMAIL and sends nothing",
    async (_field, args) => {
      for (const name of ["noteAndMail", "mailNow"]) {
        const failed = await errorOf(
          adminRequest(server, "POST", `/api/fn/${name}`, { body: "x", ...args }),
        );
        expect(failed).toMatchObject({ status: 400, code: "INVALID_EMAIL" });
      }
      expect(webhook.captured).toEqual([]);
      expect(await committedNotes()).toEqual([]);
    },
  );
});

describe("application email configuration", () => {
  const base = { SVC_ADMIN_TOKEN: ADMIN_TOKEN };

  it("catches a function's email in the dev inbox in dev mode without a provider, like auth codes", async () => {
    using dir = tempDir();
    await using server = await startTestServer({
      SVC_DB_PATH: ":memory:",
      SVC_DEV_MODE: "true",
      SVC_MANIFEST: writeApp(dir.path),
    });
    const sent = await readJSON(
      adminRequest(server, "POST", "/api/fn/mailNow", { to: "ada@example.com", subject: "Hi" }),
    );
    expect(sent).toMatchObject({ status: 200, body: { sent: true } });
    const inbox = await readJSON<{ messages: unknown[] }>(fetch(`${server.url}/api/__dev__/inbox`));
    expect(inbox.body.messages).toEqual([
      expect.objectContaining({
        channel: "email",
        to: "ada@example.com",
        from: "svc <no-reply@localhost>",
        subject: "Hi",
        body: "Now",
      }),
    ]);
  });

  it("reads SVC_EMAIL_* and ignores the SVC_AUTH_EMAIL_* overrides meant for auth flows", () => {
    const config = parseConfig({
      ...base,
      SVC_AUTH_EMAIL_PROVIDER: "webhook",
      SVC_AUTH_EMAIL_ENDPOINT: "http://127.0.0.1:9/auth",
      SVC_AUTH_EMAIL_FROM: "auth@example.com",
    });
    expect(config.auth.email.transport?.name).toBe("webhook");
    expect(config.email.transport).toBeUndefined();
  });

  it("stops the boot naming the variable when the webhook has no endpoint", () => {
    expect(() =>
      parseConfig({ ...base, SVC_EMAIL_PROVIDER: "webhook", SVC_EMAIL_FROM: "a@example.com" }),
    ).toThrow(/SVC_EMAIL_ENDPOINT/);
  });
});
