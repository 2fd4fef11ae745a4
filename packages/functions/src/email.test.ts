import { adminAuth, type Store } from "@svc/store";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { memoryStores } from "../test/memory-stores.js";
import { manifest } from "../test/runner-fixture.js";
import { createFunctionRunner, type FunctionRunner } from "./create-function-runner.js";
import { action, mutation } from "./define-function.js";
import { hook } from "./define-hook.js";
import { checkEmail, type EmailSender, type OutgoingEmail } from "./email.js";
import { FunctionsError } from "./errors.js";
import type { FunctionFileDefinition } from "./function-registry.js";

// ctx.email: input checks, immediate sends in actions, sends held until the
// commit in mutations and billing hooks, and no sends from delete hooks. The
// sender is a seam (the server wires a real transport in; apps/server's
// email-fn.test.ts drives that one), so a recording fake stands in here.

// The fixture manifest has no policies: only the admin token may write.
const auth = adminAuth;
const emailArgs = { to: z.union([z.string(), z.array(z.string())]), subject: z.string() };

const functions = new Map<string, FunctionFileDefinition>([
  [
    "welcome",
    mutation({
      args: { title: z.string(), fail: z.boolean().default(false) },
      handler: async (ctx, args) => {
        const todo = await ctx.db.insert("Todo", { title: args.title, done: false });
        await ctx.email.send({ to: "a@example.com", subject: `Made ${args.title}`, text: "Hi" });
        if (args.fail) throw new Error("after the send");
        return { id: todo.id };
      },
    }),
  ],
  [
    "mutationSend",
    mutation({
      args: emailArgs,
      handler: async (ctx, args) => {
        await ctx.db.insert("Todo", { title: "sent", done: false });
        await ctx.email.send({ to: args.to, subject: args.subject, text: "body" });
      },
    }),
  ],
  [
    "actionSend",
    action({
      args: emailArgs,
      handler: (ctx, args) => ctx.email.send({ to: args.to, subject: args.subject, text: "x" }),
    }),
  ],
  [
    "actionCatches",
    action({
      handler: async (ctx) => {
        try {
          await ctx.email.send({ to: "a@example.com", subject: "Hi", text: "x" });
          return "sent";
        } catch (error) {
          return (error as FunctionsError).code;
        }
      },
    }),
  ],
  [
    "deleteTodo",
    mutation({
      args: { id: z.string() },
      handler: (ctx, args) => ctx.db.delete("Todo", args.id),
    }),
  ],
  [
    "onTodoDelete",
    hook({
      on: { delete: { entity: "Todo" } },
      handler: (ctx, { row }) =>
        ctx.email.send({ to: "a@example.com", subject: `Deleted ${String(row.title)}`, text: "" }),
    }),
  ],
  [
    "onInvoice",
    hook({
      on: { billing: { events: ["invoice.paid"] } },
      handler: async (ctx, { event }) => {
        await ctx.db.insert("Todo", { title: event.id, done: false });
        await ctx.email.send({ to: "billing@example.com", subject: "Paid", text: event.id });
      },
    }),
  ],
]);

const storeWith = memoryStores(manifest);

interface Harness {
  readonly runner: FunctionRunner;
  readonly store: Store;
  /** Each delivered email with the titles committed when it went out. */
  readonly sent: { email: OutgoingEmail; committedTitles: string[] }[];
  readonly logged: unknown[];
}

async function harness(options: { failing?: boolean; noSender?: boolean } = {}): Promise<Harness> {
  const store = await storeWith();
  const sent: Harness["sent"] = [];
  const logged: unknown[] = [];
  const sender: EmailSender = {
    async send(email) {
      // What another connection sees at send time: only committed rows.
      const { rows } = await store.reader(adminAuth).query("Todo", {});
      sent.push({ email, committedTitles: rows.map((row) => String(row.title)) });
      if (options.failing) throw new Error("provider said 503 with secret details");
    },
  };
  const runner = createFunctionRunner({
    store,
    functions,
    ...(options.noSender !== true && { email: sender }),
    logError: (_message, error) => logged.push(error),
  });
  return { runner, store, sent, logged };
}

async function rejection(promise: Promise<unknown>): Promise<FunctionsError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(FunctionsError);
  return error as FunctionsError;
}

describe("checkEmail", () => {
  it("takes one address or a short list, without duplicates", () => {
    expect(checkEmail({ to: "a@example.com", subject: "Hi", text: "" })).toEqual({
      to: ["a@example.com"],
      subject: "Hi",
      text: "",
    });
    expect(
      checkEmail({ to: ["a@example.com", "b@localhost", "a@example.com"], subject: "S", text: "t" })
        .to,
    ).toEqual(["a@example.com", "b@localhost"]);
  });

  it.each([
    ["a line break in the subject", { subject: "Hi\r\nBcc: x@evil.test" }, "subject"],
    ["a bare LF in the subject", { subject: "Hi\nthere" }, "subject"],
    ["a header smuggled into the address", { to: "a@example.com\r\nBcc: x@evil.test" }, "to"],
    ["a second mailbox in the address", { to: "a@example.com, x@evil.test" }, "to"],
    ["a named mailbox", { to: "Eve <x@evil.test>" }, "to"],
    ["no @", { to: "nobody" }, "to"],
    ["an empty list", { to: [] }, "to"],
    ["eleven recipients", { to: Array.from({ length: 11 }, (_, i) => `u${i}@example.com`) }, "to"],
    ["an empty subject", { subject: "" }, "subject"],
    ["a subject past 200 characters", { subject: "s".repeat(201) }, "subject"],
    ["a text past 100 000 characters", { text: "t".repeat(100_001) }, "text"],
    ["a field it does not know", { html: "<b>hi</b>" }, "input"],
    ["an address past 254 characters", { to: `${"a".repeat(250)}@example.com` }, "to"],
  ])("refuses %s with INVALID_EMAIL", (_case, change, field) => {
    const input = { to: "a@example.com", subject: "Hello", text: "Body", ...change };
    let error: unknown;
    try {
      checkEmail(input);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(FunctionsError);
    expect(error).toMatchObject({ code: "INVALID_EMAIL", status: 400, expose: true });
    expect((error as Error).message).toContain(`ctx.email.send: ${field}`);
  });
});

describe("ctx.email in a mutation", () => {
  it("sends only after the transaction committed", async () => {
    const t = await harness();
    const result = await t.runner.run("welcome", { title: "Milk" }, auth);
    expect(result).toMatchObject({ id: expect.any(String) });
    expect(t.sent).toEqual([
      {
        email: { to: ["a@example.com"], subject: "Made Milk", text: "Hi" },
        committedTitles: ["Milk"],
      },
    ]);
  });

  it("sends nothing when the mutation throws after the send", async () => {
    const t = await harness();
    const error = await rejection(t.runner.run("welcome", { title: "Milk", fail: true }, auth));
    expect(error.code).toBe("FUNCTION_FAILED");
    expect(t.sent).toEqual([]);
    expect((await t.store.reader(adminAuth).query("Todo", {})).rows).toEqual([]);
  });

  it("refuses a header injection at once, so the mutation rolls back", async () => {
    const t = await harness();
    const error = await rejection(
      t.runner.run(
        "mutationSend",
        { to: "a@example.com", subject: "Hi\r\nBcc: x@evil.test" },
        auth,
      ),
    );
    expect(error).toMatchObject({ code: "INVALID_EMAIL", status: 400 });
    expect(t.sent).toEqual([]);
    expect((await t.store.reader(adminAuth).query("Todo", {})).rows).toEqual([]);
  });

  it("keeps the committed writes and logs a transport failure after the commit", async () => {
    const t = await harness({ failing: true });
    expect(await t.runner.run("mutationSend", { to: "a@example.com", subject: "Hi" }, auth)).toBe(
      null,
    );
    expect(t.sent).toHaveLength(1);
    expect(t.logged).toHaveLength(1);
    expect(t.logged[0]).toMatchObject({ code: "EMAIL_SEND_FAILED", status: 500 });
    expect((t.logged[0] as Error).cause).toMatchObject({ message: expect.stringContaining("503") });
    expect((await t.store.reader(adminAuth).query("Todo", {})).rows).toHaveLength(1);
  });

  it("is refused in a delete hook, where no commit can be awaited", async () => {
    const t = await harness();
    const { id } = (await t.runner.run("welcome", { title: "Milk" }, auth)) as { id: string };
    const error = await rejection(t.runner.run("deleteTodo", { id }, auth));
    expect(error).toMatchObject({ code: "EMAIL_UNAVAILABLE", status: 501 });
    expect(t.sent.map((entry) => entry.email.subject)).toEqual(["Made Milk"]);
  });
});

describe("ctx.email in an action", () => {
  it("delivers before the call resolves", async () => {
    const t = await harness();
    await t.runner.run(
      "actionSend",
      { to: ["a@example.com", "b@example.com"], subject: "Hi" },
      auth,
    );
    expect(t.sent.map((entry) => entry.email)).toEqual([
      { to: ["a@example.com", "b@example.com"], subject: "Hi", text: "x" },
    ]);
  });

  it("rejects with EMAIL_SEND_FAILED, keeping the provider's words out of the message", async () => {
    const t = await harness({ failing: true });
    const error = await rejection(
      t.runner.run("actionSend", { to: "a@example.com", subject: "Hi" }, auth),
    );
    expect(error).toMatchObject({ code: "EMAIL_SEND_FAILED", status: 500, expose: true });
    expect(error.message).toBe("The email could not be sent; try again.");
    expect(error.cause).toMatchObject({ message: expect.stringContaining("secret") });
    expect(await t.runner.run("actionCatches", {}, auth)).toBe("EMAIL_SEND_FAILED");
  });

  it("fails with EMAIL_SEND_FAILED when no sender is configured", async () => {
    const t = await harness({ noSender: true });
    expect(await t.runner.run("actionCatches", {}, auth)).toBe("EMAIL_SEND_FAILED");
  });

  it("refuses a line break in the address before anything is sent", async () => {
    const t = await harness();
    const error = await rejection(
      t.runner.run("actionSend", { to: "a@example.com\nBcc: x@evil.test", subject: "Hi" }, auth),
    );
    expect(error).toMatchObject({ code: "INVALID_EMAIL", status: 400 });
    expect(t.sent).toEqual([]);
  });
});

describe("ctx.email in a billing hook", () => {
  it("sends after the hook's transaction committed", async () => {
    const t = await harness();
    await t.runner.dispatchBillingEvent({
      event: { id: "evt_1", type: "invoice.paid", data: { object: {} } },
      replay: false,
    });
    expect(t.sent).toEqual([
      {
        email: { to: ["billing@example.com"], subject: "Paid", text: "evt_1" },
        committedTitles: ["evt_1"],
      },
    ]);
  });
});
