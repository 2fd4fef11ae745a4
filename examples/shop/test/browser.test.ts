import { launchBrowser, screenshotOnFailure } from "@svc/tooling/browser";
import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, type ShopServer, seedProducts, startShop } from "./shop-server.js";

// The front end (web/, built into public/app.js) in headless Chromium
// against the real server: browse, sign in with the dev code, fill a cart,
// check out, see the order.

describe.each(testDatabases())("the shop page on $name", (database) => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let server: ShopServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;

  beforeAll(async () => {
    db = await createDatabase(database);
    server = await startShop(db.target);
    await seedProducts(server);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.[Symbol.asyncDispose]();
    await server?.[Symbol.asyncDispose]();
    await db?.[Symbol.asyncDispose]();
  });

  it("sells a mug from the catalogue to a shopper who signs in with a code", async () => {
    const context = await browser.newContext();
    await screenshotOnFailure(context, `shop-${database.name}`, async () => {
      const page = await context.newPage();
      const pageErrors: string[] = [];
      page.on("pageerror", (error) => pageErrors.push(error.message));
      await page.goto(server.url);

      // A visitor sees the catalogue, without withdrawn products, and no cart.
      const mug = page.getByRole("listitem", { name: "Enamel mug" });
      await mug.getByText("$12.00").waitFor();
      await mug.getByText("25 in stock").waitFor();
      const teapot = page.getByRole("listitem", { name: "Hand-thrown teapot" });
      await teapot.getByText("Sold out", { exact: true }).waitFor();
      expect(await page.getByText("Last season's apron").count()).toBe(0);
      expect(await mug.getByRole("button", { name: "Add to cart" }).count()).toBe(0);

      await page.getByLabel("Email").fill("browser@example.com");
      await page.getByRole("button", { name: "Email me a code" }).click();
      // Dev mode hands the code to a same-machine caller; the form fills it in.
      const code = page.getByLabel("Code");
      await page.getByText("Dev mode: it is filled in for you.").waitFor();
      expect(await code.inputValue()).toMatch(/^\d{6}$/);
      await page.getByRole("button", { name: "Sign in" }).click();

      await page.getByRole("heading", { name: "Your cart" }).waitFor();
      await page.getByText("Your cart is empty.").waitFor();
      await mug.getByRole("button", { name: "Add to cart" }).click();
      await page.getByText("Added Enamel mug to your cart.").waitFor();
      const quantity = page.getByLabel("Quantity of Enamel mug");
      await quantity.filter({ hasText: "1" }).waitFor();
      await page.getByRole("button", { name: "One Enamel mug more" }).click();
      await quantity.filter({ hasText: "2" }).waitFor();
      await page.getByText("2 items, total $24.00").waitFor();

      await page.getByRole("button", { name: "Check out" }).click();
      await page.getByText("Order placed: 2 items for $24.00.").waitFor();
      await page.getByText("Your cart is empty.").waitFor();
      await page.getByText("2 × Enamel mug at $12.00").waitFor();
      // The catalogue is live: the stock the order took shows without a reload.
      await mug.getByText("23 in stock").waitFor();

      // The session survives a reload.
      await page.reload();
      await page.getByText("2 × Enamel mug at $12.00").waitFor();
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByRole("button", { name: "Email me a code" }).waitFor();
      expect(pageErrors).toEqual([]);
    });
    await context.close();
  });

  // Regression: a second device asking for a code within the minute got
  // only "less than a minute ago", with no countdown and no way to enter
  // the code the first device had received.
  it("shows a second device the cooldown's countdown and takes the code the first one got", async () => {
    const laptop = await browser.newContext();
    const phone = await browser.newContext();
    await screenshotOnFailure(browser, `shop-second-device-${database.name}`, async () => {
      const first = await laptop.newPage();
      await first.goto(server.url);
      await first.getByLabel("Email").fill("second-device@example.com");
      await first.getByRole("button", { name: "Email me a code" }).click();
      await first.getByText("Dev mode: it is filled in for you.").waitFor();
      const sent = await first.getByLabel("Code").inputValue();
      expect(sent).toMatch(/^\d{6}$/);

      const second = await phone.newPage();
      const pageErrors: string[] = [];
      second.on("pageerror", (error) => pageErrors.push(error.message));
      await second.goto(server.url);
      await second.getByLabel("Email").fill("second-device@example.com");
      await second.getByRole("button", { name: "Email me a code" }).click();
      const status = second.getByRole("status");
      await status.getByText(/You can ask for a new one\s+in \d+ s/).waitFor();
      const secondsLeft = async () =>
        Number(/in (\d+) s/.exec((await status.textContent()) ?? "")?.[1]);
      const before = await secondsLeft();
      expect(before).toBeGreaterThan(50);
      expect(before).toBeLessThanOrEqual(60);
      await expect.poll(secondsLeft, { timeout: 5000 }).toBeLessThan(before);
      expect(await second.getByRole("button", { name: "Email me a code" }).isDisabled()).toBe(true);

      await second.getByRole("button", { name: "I already have a code" }).click();
      await second.getByText("Enter the 6-digit code we emailed to").waitFor();
      await second.getByLabel("Code").fill(sent);
      await second.getByRole("button", { name: "Sign in" }).click();
      await second.getByRole("heading", { name: "Your cart" }).waitFor();
      expect(pageErrors).toEqual([]);
    });
    await laptop.close();
    await phone.close();
  });
});
