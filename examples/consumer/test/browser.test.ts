import { launchBrowser, screenshotOnFailure } from "@svc/tooling/browser";
import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callFunction, startApp, type TestApp } from "./fixtures.js";

// The front end (web/, built into public/app.js) in headless Chromium
// against the real server: a password account with a profile, an
// organization, a project, an invitation, an API key; a second person
// signs in with a code, accepts, works in the organization, and leaves.

describe.each(testDatabases())("the consumer page on $name", (database) => {
  let app: TestApp;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;

  beforeAll(async () => {
    app = await startApp(database);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.[Symbol.asyncDispose]();
    await app?.[Symbol.asyncDispose]();
  });

  it("runs an organization with two people, a project and an API key", async () => {
    const aliceContext = await browser.newContext();
    const bobContext = await browser.newContext();
    await screenshotOnFailure(browser, `consumer-${database.name}`, async () => {
      const alice = await aliceContext.newPage();
      const bob = await bobContext.newPage();
      const pageErrors: string[] = [];
      for (const page of [alice, bob])
        page.on("pageerror", (error) => pageErrors.push(error.message));

      // Alice makes a password account, then proves her address.
      await alice.goto(app.url);
      await alice.getByRole("button", { name: "Password" }).click();
      await alice.getByRole("textbox", { name: "Email" }).fill("alice@example.com");
      await alice.getByLabel("Password", { exact: true }).fill("a long enough password");
      await alice.getByRole("button", { name: "Create account" }).click();
      await alice.getByText("Signed in as alice@example.com").waitFor();
      await alice.getByText("Verify your email to see invitations sent to it.").waitFor();
      await alice.getByRole("button", { name: "Send me a code" }).click();
      await alice.getByText("(dev mode: filled in for you)").waitFor();
      await alice.getByRole("button", { name: "Verify" }).click();
      await alice
        .getByRole("heading", { name: "Verify your email" })
        .waitFor({ state: "detached" });
      await alice.getByText("No invitations.").waitFor();

      await alice.getByLabel("Display name").fill("Alice");
      await alice.getByLabel("Bio").fill("Runs Acme");
      await alice.getByRole("button", { name: "Create profile" }).click();
      await alice.getByRole("status").filter({ hasText: "Saved" }).waitFor();
      await alice.getByRole("button", { name: "Save profile" }).waitFor();

      await alice.getByLabel("New organization").fill("Acme");
      await alice.getByRole("button", { name: "Create", exact: true }).click();
      await alice.getByRole("heading", { name: "Working in Acme" }).waitFor();
      await alice.getByText("Alice (owner)").waitFor();
      await alice.getByLabel("New project").fill("Rocket");
      await alice.getByRole("button", { name: "Add" }).click();
      await alice
        .getByRole("listitem")
        .filter({ hasText: /^Rocket$/ })
        .waitFor();
      await alice.getByLabel("Invite by email").fill("bob@example.com");
      await alice.getByRole("button", { name: "Invite", exact: true }).click();
      await alice.getByText("Invited bob@example.com.").waitFor();

      // An API key, shown once, that calls the app as Alice until revoked.
      await alice.getByLabel("Key name").fill("nightly export");
      await alice.getByRole("button", { name: "Create key" }).click();
      const key = await alice.getByLabel(/^New key “nightly export”/).inputValue();
      expect(key).toMatch(/^pk\.key_/);
      await alice.getByRole("row").filter({ hasText: "nightly export" }).waitFor();
      const viaKey = await callFunction(app, key ?? "", "myProfile");
      expect(viaKey.body).toMatchObject({ displayName: "Alice", bio: "Runs Acme" });
      await alice.getByRole("button", { name: "Revoke nightly export" }).click();
      await alice.getByText("No keys yet.").waitFor();
      expect((await callFunction(app, key ?? "", "myProfile")).status).toBe(401);

      // Bob signs in with a code and finds the invitation.
      await bob.goto(app.url);
      await bob.getByRole("textbox", { name: "Email" }).fill("bob@example.com");
      await bob.getByRole("button", { name: "Email me a code" }).click();
      await bob.getByText("Dev mode: it is filled in for you.").waitFor();
      await bob.getByRole("button", { name: "Sign in" }).click();
      await bob.getByText("Acme invites you as member").waitFor();
      await bob.getByRole("button", { name: "Accept the invitation to Acme" }).click();
      await bob.getByText("No invitations.").waitFor();
      await bob.getByRole("button", { name: "Work in Acme" }).click();
      await bob.getByRole("heading", { name: "Working in Acme" }).waitFor();
      await bob
        .getByRole("listitem")
        .filter({ hasText: /^Rocket$/ })
        .waitFor();
      // Members cannot invite.
      expect(await bob.getByLabel("Invite by email").count()).toBe(0);
      // Alice's page shows her new member without a reload.
      await alice.getByText("Someone without a profile (member)").waitFor();

      await bob.getByLabel("I understand this cannot be undone").check();
      await bob.getByRole("button", { name: "Delete my account" }).click();
      await bob.getByRole("button", { name: "Email me a code" }).waitFor();
      await alice.getByText("Someone without a profile (member)").waitFor({ state: "detached" });
      expect(pageErrors).toEqual([]);
    });
    await aliceContext.close();
    await bobContext.close();
  });
});
