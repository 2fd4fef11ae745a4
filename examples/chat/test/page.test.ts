import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchBrowser, screenshotOnFailure } from "@svc/tooling/browser";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertPageBuilt, type ChatServer, startChat } from "./chat-server.js";

// The built page in headless Chromium against the real server (SQLite):
// two users in two browser contexts pick names, share a channel, see each
// other online and each other's messages live.

let server: ChatServer;
let browser: Browser & AsyncDisposable;
let dir: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  assertPageBuilt();
  dir = mkdtempSync(join(tmpdir(), "svc-chat-page-"));
  server = await startChat({ dialect: "sqlite", path: join(dir, "data.db") });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.[Symbol.asyncDispose]();
  await server?.[Symbol.asyncDispose]();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  expect(pageErrors).toEqual([]);
  expect(server.internalErrors).toEqual([]);
});

async function open(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  // Fail inside the test (with a screenshot), not at vitest's timeout.
  page.setDefaultTimeout(15_000);
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await page.goto(server.url);
  return page;
}

/** Signs in through the form with the dev-mode code, then picks a display name. */
async function signIn(page: Page, email: string, name: string): Promise<void> {
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Send code" }).click();
  const code = page.getByLabel("Code");
  await expect.poll(() => code.inputValue()).toMatch(/^\d{6}$/);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("textbox", { name: "Display name" }).fill(name);
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByText(`Signed in as ${name}`).waitFor();
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole("textbox", { name: "Message", exact: true }).fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

const online = (page: Page) =>
  page
    .getByRole("list", { name: "Online" })
    .getByRole("listitem")
    .allTextContents()
    .then((names) => names.sort());

const messages = (page: Page) =>
  page
    .getByRole("log", { name: "Messages" })
    .getByRole("article")
    .evaluateAll((articles) =>
      articles.map((article) => [
        article.querySelector("strong")?.textContent ?? "",
        article.querySelector("p")?.textContent ?? "",
      ]),
    );

describe("the chat page", () => {
  it("shows two users each other's messages and presence, live", async () => {
    const adaContext = await browser.newContext();
    const bobContext = await browser.newContext();
    await screenshotOnFailure(browser, "chat-two-users", async () => {
      const ada = await open(adaContext);
      await signIn(ada, "ada@example.com", "Ada");
      await ada.getByText("No channels yet").waitFor();
      await ada.getByRole("textbox", { name: "New channel" }).fill("General");
      await ada.getByRole("button", { name: "Create" }).click();
      await ada.getByRole("heading", { name: "#general" }).waitFor();
      await expect.poll(() => online(ada)).toEqual(["Ada (you)"]);

      const bob = await open(bobContext);
      await signIn(bob, "bob@example.com", "Bob");
      // The only channel opens by itself; Bob's arrival shows up in Ada's online list.
      await bob.getByRole("heading", { name: "#general" }).waitFor();
      await expect.poll(() => online(bob)).toEqual(["Ada", "Bob (you)"]);
      await expect.poll(() => online(ada)).toEqual(["Ada (you)", "Bob"]);

      await send(ada, "Hello Bob");
      await expect.poll(() => messages(bob)).toEqual([["Ada", "Hello Bob"]]);
      expect(await ada.getByRole("textbox", { name: "Message", exact: true }).inputValue()).toBe(
        "",
      );
      await send(bob, "Hi Ada");
      await expect
        .poll(() => messages(ada))
        .toEqual([
          ["Ada", "Hello Bob"],
          ["Bob", "Hi Ada"],
        ]);

      // A renamed user is renamed everywhere: messages and the online list.
      await bob.getByRole("button", { name: "Change name" }).click();
      await bob.getByRole("textbox", { name: "Display name" }).fill("Robert");
      await bob.getByRole("button", { name: "Save" }).click();
      await expect.poll(() => online(ada)).toEqual(["Ada (you)", "Robert"]);
      await expect
        .poll(() => messages(ada))
        .toEqual([
          ["Ada", "Hello Bob"],
          ["Robert", "Hi Ada"],
        ]);

      // A new channel appears for everyone; whoever moves to it leaves the other's list.
      await bob.getByRole("textbox", { name: "New channel" }).fill("random");
      await bob.getByRole("button", { name: "Create" }).click();
      await bob.getByRole("heading", { name: "#random" }).waitFor();
      await expect.poll(() => messages(bob)).toEqual([]);
      await ada
        .getByRole("navigation", { name: "Channels" })
        .getByRole("link", { name: "#random" })
        .waitFor();
      await expect.poll(() => online(ada)).toEqual(["Ada (you)"]);

      // Closing the page leaves the room too.
      await ada.getByRole("link", { name: "#random" }).click();
      await expect.poll(() => online(bob)).toEqual(["Ada", "Robert (you)"]);
      await ada.close();
      await expect.poll(() => online(bob)).toEqual(["Robert (you)"]);
    });
    await adaContext.close();
    await bobContext.close();
  });
});
