import { adminAuth } from "@svc/store";
import { screenshotOnFailure } from "@svc/tooling/browser";
import { testDatabases } from "@svc/tooling/databases";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { appServerPerTest } from "./app-server.js";
import { type AuthTestServer, readJSON } from "./auth-fixtures.js";
import { type BrowserContext, browserPerFile, type Page } from "./browser.js";
import { ADMIN_TOKEN, adminRequest } from "./fixtures.js";
import { STUDIO_APP } from "./studio-fixtures.js";

// The studio as an admin uses it, in headless Chromium against the real
// server: sign in with the admin token, open an entity, edit a row and see
// the change on the page and through the API; a bad value comes back as
// the form with the error; markup in a row never runs; sign-in returns to
// the page asked for; sign-out. A failure leaves screenshots in
// test-artifacts/.

/** Would show a dialog if any page ran it. */
const HOSTILE_TITLE = `<img src=x onerror="alert('xss')"><script>alert('xss')</script>`;

/** The Note form's fields shown as select boxes (a text box there fails the test). */
const SELECT_FIELDS = new Set(["done", "tag"]);

/** Enters each value in the row form's field of that name, in order: chosen in a select box, else typed. */
async function fillRowForm(page: Page, values: Readonly<Record<string, string>>): Promise<void> {
  for (const [field, value] of Object.entries(values)) {
    const input = page.locator(`#field-${field}`);
    if (SELECT_FIELDS.has(field)) await input.selectOption(value);
    else await input.fill(value);
  }
}

const chromium = browserPerFile();

describe.each(testDatabases())("the studio in a browser on $name", (database) => {
  const app = appServerPerTest(database, { ...STUDIO_APP, scope: "suite" });
  let server: AuthTestServer;
  /** Script errors, console errors (a CSP refusal among them) and unexpected dialogs. */
  const problems: string[] = [];

  beforeAll(() => {
    server = app.server;
  });

  afterEach(() => {
    const seen = problems.splice(0);
    expect(seen).toEqual([]);
    expect(server.internalErrors).toEqual([]);
  });

  async function openPage(context: BrowserContext, path = "/studio"): Promise<Page> {
    const page = await context.newPage();
    // Fail inside the test (with a screenshot), not at vitest's timeout.
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      // A page answered 400/401 logs "Failed to load resource"; its
      // stylesheet and script are checked below instead.
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
        problems.push(`console: ${message.text()}`);
      }
    });
    page.on("response", (response) => {
      const request = response.request();
      const { pathname } = new URL(response.url());
      if (request.resourceType() !== "document" && pathname !== "/favicon.ico" && !response.ok()) {
        problems.push(`${request.resourceType()} ${pathname}: ${response.status()}`);
      }
    });
    page.on("dialog", (dialog) => {
      // The delete button's confirmation is the only dialog the studio shows.
      if (dialog.type() === "confirm" && dialog.message() === "Delete this row?") {
        void dialog.accept();
        return;
      }
      problems.push(`dialog: ${dialog.type()} ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.goto(`${server.url}${path}`);
    return page;
  }

  async function signIn(page: Page, token = ADMIN_TOKEN): Promise<void> {
    await page.getByLabel("Admin token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
  }

  async function insertNote(title: string, count: number): Promise<string> {
    const row = await server.store.transaction(adminAuth, (tx) =>
      tx.insert("Note", { title, count, done: false, tag: "red", ownerId: "owner-1" }),
    );
    return row.id;
  }

  it("signs in with the admin token, edits a row and shows the change, on the page and through the API", async () => {
    const id = await insertNote("Water the plants", 1);
    const context = await chromium.browser.newContext();
    await screenshotOnFailure(context, `studio-edit-${database.name}`, async () => {
      const page = await openPage(context);
      await signIn(page, "not the token");
      await page.getByRole("alert").getByText("INVALID_TOKEN").waitFor();
      await signIn(page);
      await page.getByRole("heading", { name: "Entities of studio-app" }).waitFor();
      // The stylesheet loaded under the page's CSP (this tsconfig has no DOM types).
      expect(
        await page.locator("table").evaluate(
          (table) =>
            (
              globalThis as unknown as {
                getComputedStyle(element: unknown): { borderCollapse: string };
              }
            ).getComputedStyle(table).borderCollapse,
        ),
      ).toBe("collapse");

      await page.getByRole("link", { name: "Note", exact: true }).click();
      await page.getByRole("heading", { name: "Note" }).waitFor();
      const row = page.locator(`tr[data-id="${id}"]`);
      expect(await row.locator('td[data-field="title"]').textContent()).toBe("Water the plants");

      await row.getByRole("link", { name: "Edit" }).click();
      await page.getByRole("heading", { name: `Note ${id}` }).waitFor();
      expect(await page.locator("#field-title").inputValue()).toBe("Water the plants");
      await fillRowForm(page, {
        title: "Water the plants twice",
        count: "2",
        done: "true",
        tag: "blue",
        meta: '{"room": "kitchen"}',
      });
      await page.getByRole("button", { name: "Save" }).click();

      await page.getByRole("status").getByText("Row saved.").waitFor();
      const saved = page.locator(`tr[data-id="${id}"]`);
      expect(await saved.locator('td[data-field="title"]').textContent()).toBe(
        "Water the plants twice",
      );
      expect(await saved.locator('td[data-field="count"]').textContent()).toBe("2");
      expect(await saved.locator('td[data-field="done"]').textContent()).toBe("true");
      expect(await saved.locator('td[data-field="meta"]').textContent()).toBe('{"room":"kitchen"}');

      const api = await readJSON(adminRequest(server, "GET", `/api/entities/Note/${id}`));
      expect(api.body).toMatchObject({
        id,
        title: "Water the plants twice",
        count: 2,
        done: true,
        tag: "blue",
        meta: { room: "kitchen" },
      });

      // A bad value: the form again, with the error and what was typed.
      await saved.getByRole("link", { name: "Edit" }).click();
      await fillRowForm(page, { title: "Not saved", meta: "{not json" });
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByRole("alert").getByText("INVALID_JSON").waitFor();
      expect(await page.locator("#field-title").inputValue()).toBe("Not saved");
      expect(
        (await readJSON(adminRequest(server, "GET", `/api/entities/Note/${id}`))).body,
      ).toMatchObject({
        title: "Water the plants twice",
      });

      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByLabel("Admin token").waitFor();
      await page.goto(`${server.url}/studio/entities/Note`);
      await page.getByRole("alert").getByText("AUTH_REQUIRED").waitFor();
    });
    await context.close();
  });

  it("inserts and deletes a row through the forms", async () => {
    const context = await chromium.browser.newContext();
    await screenshotOnFailure(context, `studio-insert-delete-${database.name}`, async () => {
      const page = await openPage(context, "/studio/entities/Note/new");
      // Sign-in returns to the page that asked for it.
      await signIn(page);
      await page.getByRole("heading", { name: "New Note" }).waitFor();
      await fillRowForm(page, {
        title: "Made in the browser",
        count: "5",
        done: "false",
        tag: "red",
        ownerId: "owner-7",
      });
      await page.getByRole("button", { name: "Insert" }).click();
      await page.getByRole("status").getByText("Row inserted.").waitFor();
      const row = page.locator("tr[data-id]");
      expect(await row.count()).toBe(1);
      const id = (await row.getAttribute("data-id")) ?? "";
      expect(await row.locator('td[data-field="title"]').textContent()).toBe("Made in the browser");
      expect(await server.store.reader(adminAuth).get("Note", id)).toMatchObject({
        title: "Made in the browser",
        ownerId: "owner-7",
      });

      await row.getByRole("link", { name: "Edit" }).click();
      // The confirmation dialog is accepted by the page's handler.
      await page.getByRole("button", { name: "Delete row" }).click();
      await page.getByRole("status").getByText("Row deleted.").waitFor();
      expect(await server.store.reader(adminAuth).get("Note", id)).toBeNull();
    });
    await context.close();
  });

  it("keeps tables readable: short ids with a copy button, one-line sticky headers, cells edited in place", async () => {
    const id = await insertNote("Edit me in place", 4);
    const context = await chromium.browser.newContext({
      permissions: ["clipboard-read", "clipboard-write"],
    });
    await screenshotOnFailure(context, `studio-tables-${database.name}`, async () => {
      const page = await openPage(context, `/studio/entities/Note?field=id&value=${id}`);
      await signIn(page);
      const row = page.locator(`tr[data-id="${id}"]`);
      await row.waitFor();
      // The id is shortened, the whole id one click away.
      const idCell = row.locator('td[data-field="id"]');
      expect(await idCell.locator("code").textContent()).toBe(`${id.slice(0, 8)}…`);
      await idCell.getByRole("button", { name: `Copy ${id}` }).click();
      expect(
        await page.evaluate(() =>
          (
            globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
          ).navigator.clipboard.readText(),
        ),
      ).toBe(id);
      // Every header on one line (never "don e"), and sticky.
      const headers = page.locator("thead th a.sort");
      expect(await headers.count()).toBeGreaterThan(5);
      for (const header of await headers.all()) {
        expect(
          await header.evaluate(
            (element) =>
              (element as unknown as { getClientRects(): { length: number } }).getClientRects()
                .length,
          ),
          (await header.textContent()) ?? "",
        ).toBe(1);
      }
      expect(
        await page
          .locator("thead th")
          .first()
          .evaluate(
            (element) =>
              (
                globalThis as unknown as {
                  getComputedStyle(element: unknown): { position: string; whiteSpace: string };
                }
              ).getComputedStyle(element).position,
          ),
      ).toBe("sticky");

      // Double-click a cell, type, Enter: saved, back on the same list.
      await row.locator('td[data-field="title"]').dblclick();
      const box = row.locator('td[data-field="title"] input[name="title"]');
      await box.fill("Edited in place");
      await box.press("Enter");
      await page.getByRole("status").getByText("Row saved.").waitFor();
      expect(await page.locator(`tr[data-id="${id}"] td[data-field="title"]`).textContent()).toBe(
        "Edited in place",
      );
      await page.locator(`tr[data-id="${id}"] td[data-field="tag"]`).dblclick();
      await page.locator(`tr[data-id="${id}"] td[data-field="tag"] select`).selectOption("blue");
      await page
        .locator(`tr[data-id="${id}"] td[data-field="tag"]`)
        .getByRole("button", { name: "Save" })
        .click();
      await page.getByRole("status").getByText("Row saved.").waitFor();
      expect(await server.store.reader(adminAuth).get("Note", id)).toMatchObject({
        title: "Edited in place",
        tag: "blue",
        count: 4,
      });
      // Escape puts the cell back as it was.
      await page.locator(`tr[data-id="${id}"] td[data-field="count"]`).dblclick();
      await page
        .locator(`tr[data-id="${id}"] td[data-field="count"] input[name="count"]`)
        .press("Escape");
      expect(await page.locator(`tr[data-id="${id}"] td[data-field="count"]`).textContent()).toBe(
        "4",
      );
      // A value the store refuses: its message on the row's form, with what was typed.
      await page.locator(`tr[data-id="${id}"] td[data-field="count"]`).dblclick();
      await page
        .locator(`tr[data-id="${id}"] td[data-field="count"] input[name="count"]`)
        .fill("1.5");
      await page
        .locator(`tr[data-id="${id}"] td[data-field="count"] input[name="count"]`)
        .press("Enter");
      await page.getByRole("alert").getByText("INVALID_FIELD").waitFor();
      expect(await page.locator("#field-count").inputValue()).toBe("1.5");
      expect(await page.locator("#field-title").inputValue()).toBe("Edited in place");
    });
    await context.close();
  });

  it("shows markup in a row as text, never running it", async () => {
    const id = await insertNote(HOSTILE_TITLE, 3);
    const context = await chromium.browser.newContext();
    await screenshotOnFailure(context, `studio-xss-${database.name}`, async () => {
      const page = await openPage(context, `/studio/entities/Note?field=id&value=${id}`);
      await signIn(page);
      const cell = page.locator(`tr[data-id="${id}"] td[data-field="title"]`);
      expect(await cell.textContent()).toBe(HOSTILE_TITLE);
      expect(await cell.locator("img, script").count()).toBe(0);
      await page.locator(`tr[data-id="${id}"]`).getByRole("link", { name: "Edit" }).click();
      expect(await page.locator("#field-title").inputValue()).toBe(HOSTILE_TITLE);
      expect(await page.locator("main img, main script").count()).toBe(0);
      // `problems` (checked after the test) holds any dialog the markup opened.
    });
    await context.close();
  });
});
