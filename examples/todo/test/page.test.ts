import { launchBrowser, screenshotOnFailure } from "@svc/tooling/browser";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertPageBuilt, startTodo, type TodoServer } from "./todo-server.js";

// The built page in headless Chromium against the real server: sign-in with
// the dev code, todos added in one tab showing up live in another, and each
// user seeing only their own.

let server: TodoServer;
let browser: Browser & AsyncDisposable;
const pageErrors: string[] = [];

beforeAll(async () => {
  assertPageBuilt();
  server = await startTodo();
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.[Symbol.asyncDispose]();
  await server?.[Symbol.asyncDispose]();
});

afterEach(() => {
  expect(pageErrors).toEqual([]);
  expect(server.internalErrors).toEqual([]);
});

async function openTab(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  // Fail inside the test (with a screenshot), not at vitest's timeout.
  page.setDefaultTimeout(15_000);
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await page.goto(server.url);
  return page;
}

/** Signs in through the form, taking the code the dev-mode server handed back. */
async function signIn(page: Page, email: string): Promise<void> {
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Send code" }).click();
  const code = page.getByLabel("Code");
  await expect.poll(() => code.inputValue()).toMatch(/^\d{6}$/);
  await expect
    .poll(() => page.getByText(/Dev mode: the code is/).textContent())
    .toContain(await code.inputValue());
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByText("Nothing to do yet").waitFor();
}

async function addTodo(page: Page, title: string, priority: "Low" | "High" = "Low") {
  await page.getByLabel("New todo").fill(title);
  await page.getByLabel("Priority").selectOption({ label: priority });
  await page.getByRole("button", { name: "Add" }).click();
}

const todoTitles = (page: Page) =>
  page
    .getByRole("list", { name: "Todos" })
    .getByRole("checkbox")
    .evaluateAll((boxes) => boxes.map((box) => box.parentElement?.textContent ?? ""));

describe("the todo page", () => {
  it("shows a todo added in one tab live in a second tab, both ways", async () => {
    const context = await browser.newContext();
    await screenshotOnFailure(context, "todo-two-tabs", async () => {
      const first = await openTab(context);
      await signIn(first, "ada@example.com");
      await first.getByText("ada@example.com").waitFor();

      // The second tab shares the session through localStorage.
      const second = await openTab(context);
      await second.getByText("Nothing to do yet").waitFor();

      await addTodo(first, "Buy milk", "High");
      await second.getByRole("checkbox", { name: "Buy milk" }).waitFor();
      expect(await second.getByRole("list", { name: "Todos" }).textContent()).toContain("high");
      // The form resets once the todo is saved.
      await expect.poll(() => first.getByLabel("New todo").inputValue()).toBe("");
      expect(await first.getByLabel("Priority").inputValue()).toBe("low");

      await addTodo(second, "Call Grace");
      await first.getByRole("checkbox", { name: "Call Grace" }).waitFor();
      await expect.poll(() => todoTitles(first)).toEqual(["Call Grace", "Buy milk"]);
      await expect.poll(() => todoTitles(second)).toEqual(["Call Grace", "Buy milk"]);

      await second.getByRole("checkbox", { name: "Buy milk" }).click();
      await expect
        .poll(() => first.getByRole("checkbox", { name: "Buy milk" }).isChecked())
        .toBe(true);
      await first.getByText("1 open · 1 done").waitFor();
      await second.getByText("1 open · 1 done").waitFor();

      // Signing out in one tab signs the other out too.
      await first.getByRole("button", { name: "Sign out" }).click();
      await first.getByLabel("Email").waitFor();
      await second.getByLabel("Email").waitFor();
    });
    await context.close();
  });

  it("keeps each user's todos to themselves", async () => {
    const ada = await browser.newContext();
    const bob = await browser.newContext();
    await screenshotOnFailure(browser, "todo-two-users", async () => {
      const adaPage = await openTab(ada);
      await signIn(adaPage, "ada.private@example.com");
      await addTodo(adaPage, "Ada's secret");
      await adaPage.getByRole("checkbox", { name: "Ada's secret" }).waitFor();

      const bobPage = await openTab(bob);
      await signIn(bobPage, "bob@example.com");
      await addTodo(bobPage, "Bob's errand");
      await bobPage.getByRole("checkbox", { name: "Bob's errand" }).waitFor();
      await addTodo(adaPage, "Ada's second");
      await adaPage.getByRole("checkbox", { name: "Ada's second" }).waitFor();

      // Bob's list is his one todo; Ada's writes, before and after he signed in, never reach it.
      await addTodo(bobPage, "Bob's second");
      await expect.poll(() => todoTitles(bobPage)).toEqual(["Bob's second", "Bob's errand"]);
      await expect.poll(() => todoTitles(adaPage)).toEqual(["Ada's second", "Ada's secret"]);
    });
    await ada.close();
    await bob.close();
  });

  // Regression: a second device asking for a code within the minute got
  // only "less than a minute ago", with no countdown and no way to enter
  // the code the first device had received.
  it("shows a second device the cooldown's countdown and takes the code the first one got", async () => {
    const laptop = await browser.newContext();
    const phone = await browser.newContext();
    await screenshotOnFailure(browser, "todo-second-device", async () => {
      const first = await openTab(laptop);
      await first.getByLabel("Email").fill("grace@example.com");
      await first.getByRole("button", { name: "Send code" }).click();
      const code = first.getByLabel("Code");
      await expect.poll(() => code.inputValue()).toMatch(/^\d{6}$/);
      const sent = await code.inputValue();

      const second = await openTab(phone);
      await second.getByLabel("Email").fill("grace@example.com");
      await second.getByRole("button", { name: "Send code" }).click();
      const status = second.getByRole("status");
      await status.getByText(/You can ask for a new one in \d+ s/).waitFor();
      const secondsLeft = async () =>
        Number(/in (\d+) s/.exec((await status.textContent()) ?? "")?.[1]);
      const before = await secondsLeft();
      expect(before).toBeGreaterThan(50);
      expect(before).toBeLessThanOrEqual(60);
      // It counts down, and asking again waits for it.
      await expect.poll(secondsLeft, { timeout: 5000 }).toBeLessThan(before);
      expect(await second.getByRole("button", { name: "Send code" }).isDisabled()).toBe(true);
      expect(await second.getByRole("alert").count()).toBe(0);

      await second.getByRole("button", { name: "I already have a code" }).click();
      await second.getByText("Enter the code we emailed to").waitFor();
      await second.getByLabel("Code").fill(sent);
      await second.getByRole("button", { name: "Sign in" }).click();
      await second.getByText("Nothing to do yet").waitFor();
      await second.getByText("grace@example.com").waitFor();
    });
    await laptop.close();
    await phone.close();
  });

  it("asks for the address before the code when there is none", async () => {
    const context = await browser.newContext();
    await screenshotOnFailure(context, "todo-have-code-no-email", async () => {
      const page = await openTab(context);
      await page.getByRole("button", { name: "I already have a code" }).click();
      // The browser's own check stops it; the form stays on the address.
      expect(
        await page
          .getByLabel("Email")
          .evaluate((input: HTMLInputElement) => input.validity.valueMissing),
      ).toBe(true);
      expect(await page.getByLabel("Code").count()).toBe(0);
    });
    await context.close();
  });
});
