import { launchBrowser, screenshotOnFailure } from "@svc/tooling/browser";
import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModel, fakeReply, startFakeModel } from "./fake-model.js";
import { startApp, type TestApp } from "./fixtures.js";

// The front end (web/, built into public/app.js) in headless Chromium
// against the real server, with the model played by the local fake: a
// conversation, the thinking state, a failure, and deleting it.

const MODEL_ENV = ["AI_CHAT_MODEL_URL", "AI_CHAT_MODEL"] as const;

describe.each(testDatabases())("the chat page on $name", (database) => {
  let app: TestApp;
  let model: FakeModel;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  const saved = Object.fromEntries(MODEL_ENV.map((name) => [name, process.env[name]]));

  beforeAll(async () => {
    model = await startFakeModel();
    process.env.AI_CHAT_MODEL_URL = model.url;
    process.env.AI_CHAT_MODEL = "fake-1";
    app = await startApp(database);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.[Symbol.asyncDispose]();
    await app?.[Symbol.asyncDispose]();
    await model?.[Symbol.asyncDispose]();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("holds a conversation with the model, shows its failures and deletes it", async () => {
    const context = await browser.newContext();
    await screenshotOnFailure(context, `ai-chat-${database.name}`, async () => {
      const page = await context.newPage();
      const pageErrors: string[] = [];
      page.on("pageerror", (error) => pageErrors.push(error.message));
      await page.goto(app.url);

      await page.getByRole("textbox", { name: "Email" }).fill("chat@example.com");
      await page.getByRole("button", { name: "Email me a code" }).click();
      await page.getByText("Dev mode: it is filled in for you.").waitFor();
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByText("Ask anything to start a conversation.").waitFor();

      // While the model thinks, the question shows and so does the wait.
      const release = model.hold();
      const box = page.getByLabel("Message");
      await box.fill("What is svc?");
      await box.press("Enter");
      const thread = page.getByRole("main");
      await thread.getByText("What is svc?").waitFor();
      await thread.getByRole("status").filter({ hasText: "Thinking…" }).waitFor();
      expect(await box.inputValue()).toBe("");
      release();
      const firstReply = fakeReply([{ content: "What is svc?" }]);
      await thread.getByText(firstReply).waitFor();
      await page
        .getByRole("status")
        .filter({ hasText: "Thinking…" })
        .waitFor({ state: "detached" });
      const sidebar = page.getByRole("navigation", { name: "Conversations" });
      await sidebar.getByRole("button", { name: "What is svc?", exact: true }).waitFor();

      await box.fill("And why?");
      await page.getByRole("button", { name: "Send" }).click();
      await thread
        .getByText(fakeReply([{ content: "" }, { content: "" }, { content: "And why?" }]))
        .waitFor();
      expect(model.requests.at(-1)?.body.messages?.map((message) => message.role)).toEqual([
        "user",
        "assistant",
        "user",
      ]);

      // A failing model: the question stays, no reply, and the page says why.
      model.mode = "fail";
      await box.fill("Still there?");
      await box.press("Enter");
      await page
        .getByRole("alert")
        .filter({ hasText: "The model endpoint answered 500." })
        .waitFor();
      await thread.getByText("Still there?").waitFor();
      model.mode = "reply";

      // A second conversation, then back to the first.
      await sidebar.getByRole("button", { name: "New conversation" }).click();
      await page.getByText("Ask anything to start a conversation.").waitFor();
      await box.fill("Second topic");
      await box.press("Enter");
      await thread.getByText(fakeReply([{ content: "Second topic" }])).waitFor();
      await sidebar.getByRole("button", { name: "What is svc?", exact: true }).click();
      await thread.getByText(firstReply).waitFor();
      expect(await thread.getByText("Second topic").count()).toBe(0);

      await sidebar.getByRole("button", { name: "Delete “What is svc?”" }).click();
      await sidebar
        .getByRole("button", { name: "What is svc?", exact: true })
        .waitFor({ state: "detached" });
      await page.getByText("Ask anything to start a conversation.").waitFor();
      await sidebar.getByRole("button", { name: "Second topic", exact: true }).waitFor();
      expect(pageErrors).toEqual([]);
    });
    await context.close();
  });
});
