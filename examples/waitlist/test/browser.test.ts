import { launchBrowser, screenshotOnFailure } from "@svc/tooling/browser";
import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, callFunction, startApp, type TestApp } from "./fixtures.js";

// The front end (web/, built into public/app.js) in headless Chromium
// against the real server: a person signs up with a code and joins; an
// admin sees the line and invites them; the person's page shows it live.

type Browser = Awaited<ReturnType<typeof launchBrowser>>;
type Page = Awaited<ReturnType<Browser["newPage"]>>;

/** Signs in on `page` with the code dev mode fills in. */
async function signIn(page: Page, email: string): Promise<void> {
  await page.getByRole("textbox", { name: "Email" }).fill(email);
  await page.getByRole("button", { name: "Email me a code" }).click();
  await page.getByText("Dev mode: it is filled in for you.").waitFor();
  await page.getByRole("button", { name: "Sign in" }).click();
}

describe.each(testDatabases())("the waitlist page on $name", (database) => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await startApp(database);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.[Symbol.asyncDispose]();
    await app?.[Symbol.asyncDispose]();
  });

  it("takes a sign-up, shows the admin the line, and tells the person when invited", async () => {
    const personContext = await browser.newContext();
    const adminContext = await browser.newContext();
    await screenshotOnFailure(browser, `waitlist-${database.name}`, async () => {
      const person = await personContext.newPage();
      const admin = await adminContext.newPage();
      const pageErrors: string[] = [];
      for (const page of [person, admin])
        page.on("pageerror", (error) => pageErrors.push(error.message));

      await person.goto(app.url);
      await person.getByRole("heading", { name: "Something good is coming." }).waitFor();
      await signIn(person, "ada@example.com");
      await person.getByText("Signed in as ada@example.com.").waitFor();
      await person.getByLabel("Anything we should know? (optional)").fill("I make teapots");
      await person.getByRole("button", { name: "Join the waitlist" }).click();
      await person.getByRole("heading", { name: "You're on the list" }).waitFor();
      await person.getByText("Number 1 in line").waitFor();
      await person.getByText("Your note: “I make teapots”").waitFor();
      expect(await person.getByRole("heading", { name: "Everyone in line" }).count()).toBe(0);

      await admin.goto(app.url);
      await signIn(admin, "boss@example.com");
      await admin.getByRole("heading", { name: "Take your place" }).waitFor();
      expect(await admin.getByRole("heading", { name: "Everyone in line" }).count()).toBe(0);
      // The admin token makes boss an admin; the page picks it up live.
      const granted = await callFunction(app, ADMIN_TOKEN, "grantAdmin", {
        email: "boss@example.com",
      });
      expect(granted.status).toBe(200);
      await admin.getByRole("heading", { name: "Everyone in line" }).waitFor();
      const row = admin.getByRole("row").filter({ hasText: "ada@example.com" });
      await row.getByText("I make teapots").waitFor();
      await admin.getByRole("button", { name: "Invite ada@example.com" }).click();
      await row.getByText(/^Invited /).waitFor();

      await admin.getByLabel("Show").selectOption("waiting");
      await admin.getByText("Nobody here yet.").waitFor();
      await admin.getByLabel("Show").selectOption("invited");
      await admin.getByRole("row").filter({ hasText: "ada@example.com" }).waitFor();

      await person.getByRole("heading", { name: "You're in!" }).waitFor();
      expect(pageErrors).toEqual([]);
    });
    await personContext.close();
    await adminContext.close();
  });
});
