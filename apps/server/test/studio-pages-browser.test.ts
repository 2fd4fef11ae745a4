import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adminAuth } from "@svc/store";
import { artifactsDir, screenshotOnFailure } from "@svc/tooling/browser";
import { matchTarget, testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appServerPerTest } from "./app-server.js";
import { type AuthTestServer, post, readJSON, registerPassword } from "./auth-fixtures.js";
import { type BrowserContext, browserPerFile, type Page } from "./browser.js";
import { ADMIN_TOKEN, adminRequest } from "./fixtures.js";
import { STUDIO_APP, StudioClient } from "./studio-fixtures.js";
import { connectWs, type WsClient } from "./ws-client.js";

// Every studio page in headless Chromium against a server with data in
// it: the page loads under its CSP with no script or console error and no
// failed asset, shows what it is for, keeps every table header on one
// line, and is photographed. The pictures go to test-artifacts/; with
// SVC_UPDATE_SCREENSHOTS=1 the SQLite run writes them to docs/studio/ (the
// screenshots the studio's docs show).

const VIEWPORT = { width: 1280, height: 800 };
const DOCS_DIR = join(import.meta.dirname, "..", "..", "..", "docs", "studio");

/** What the seeded server holds that pages link to. */
interface Seeded {
  noteId: string;
  adaId: string;
  /** The open live connections as `/metrics` reports them now (at least three are expected). */
  liveConnections: () => Promise<number>;
}

/** One studio page: where it is, and what shows it is ready and right. */
interface StudioPageCase {
  readonly name: string;
  readonly title: string;
  readonly path: (seeded: Seeded) => string;
  /** Waits for what the page is for, and checks it. */
  readonly check: (page: Page, seeded: Seeded) => Promise<void>;
  readonly signedIn?: boolean;
}

/** The check of a list page: its first row (`rows`) appears and its total reads `total`. */
function listShowsTotal(rows: string, total: string): StudioPageCase["check"] {
  return async (page) => {
    await page.locator(rows).first().waitFor();
    expect(await page.locator(".total").textContent()).toBe(total);
  };
}

const PAGES: readonly StudioPageCase[] = [
  {
    name: "sign-in",
    title: "the sign-in form",
    signedIn: false,
    path: () => "/studio",
    check: async (page) => {
      await page.getByLabel("Admin token").waitFor();
      expect(await page.getByRole("button", { name: "Sign in" }).isVisible()).toBe(true);
    },
  },
  {
    name: "entities",
    title: "the entities with their row counts",
    path: () => "/studio",
    check: async (page) => {
      await page.getByRole("heading", { name: "Entities of studio-app" }).waitFor();
      expect(await page.locator('tbody td[data-field="rows"]').allTextContents()).toEqual([
        "3",
        "12",
        "2",
      ]);
    },
  },
  {
    name: "rows",
    title: "an entity's rows: short ids, relations, folded JSON, sortable headers",
    path: () => "/studio/entities/Note",
    check: async (page) => {
      await page.locator("table.rows tbody tr").first().waitFor();
      expect(await page.locator("table.rows tbody tr").count()).toBe(12);
      expect(await page.locator(".total").textContent()).toBe("12 rows");
      expect(await page.locator('td[data-field="listId"] a').count()).toBeGreaterThan(0);
      expect(await page.locator('td[data-field="meta"] details.fold').count()).toBeGreaterThan(0);
      expect(await page.locator("th[aria-sort=descending]").textContent()).toContain("createdAt");
    },
  },
  {
    name: "row",
    title: "a row's form",
    path: (seeded) => `/studio/entities/Note/rows/${seeded.noteId}`,
    check: async (page, seeded) => {
      await page.getByRole("heading", { name: `Note ${seeded.noteId}` }).waitFor();
      expect(await page.getByRole("link", { name: "Open the List" }).isVisible()).toBe(true);
      expect(await page.getByRole("button", { name: "Delete row" }).isVisible()).toBe(true);
    },
  },
  {
    name: "functions",
    title: "a function run as the admin",
    path: () => "/studio/functions",
    check: async (page) => {
      await page.locator("#fn-name").selectOption("echo");
      await page.locator("#fn-args").fill('{"hello": "studio"}');
      await page.getByRole("button", { name: "Run as admin" }).click();
      await page.getByRole("heading", { name: "Result" }).waitFor();
      expect(await page.locator("pre.result").textContent()).toContain('"hello": "studio"');
    },
  },
  {
    name: "policies",
    title: "an entity's policies, access matrix, lint and explanation",
    path: () => `/studio/policies/Note?caller=${encodeURIComponent('{"userId":"u1"}')}`,
    check: async (page) => {
      await page.locator('table.matrix[data-entity="Note"]').waitFor();
      expect(await page.locator('pre.explain[data-action="read"]').count()).toBe(2);
    },
  },
  {
    name: "users",
    title: "the users",
    path: () => "/studio/users",
    check: listShowsTotal("tbody tr[data-id]", "3 users"),
  },
  {
    name: "sessions",
    title: "sessions, metadata only",
    path: () => "/studio/sessions",
    check: listShowsTotal("tbody tr", "3 sessions"),
  },
  {
    name: "api-keys",
    title: "API keys, metadata only",
    path: () => "/studio/api-keys",
    check: async (page) => {
      await page.locator("tbody tr").first().waitFor();
      expect(await page.locator('td[data-field="name"]').allTextContents()).toEqual(["deploy bot"]);
    },
  },
  {
    name: "audit",
    title: "the audit log with the studio's own actions",
    path: () => "/studio/audit",
    check: async (page) => {
      await page.locator("tbody tr").first().waitFor();
      const kinds = await page.locator('td[data-field="kind"]').allTextContents();
      expect(kinds).toEqual(expect.arrayContaining(["StudioEdit", "StudioSignIn", "SignUp"]));
      expect(await page.locator("td[data-field=user] .badge").first().textContent()).toBe("studio");
    },
  },
  {
    name: "jobs",
    title: "the job queue",
    path: () => "/studio/jobs",
    check: async (page) => {
      await page.locator("tbody tr[data-id]").first().waitFor();
      const statuses = await page.locator('td[data-field="status"]').allTextContents();
      expect([...statuses].sort()).toEqual(["dead", "pending", "pending"]);
      expect(await page.getByRole("button", { name: "Retry" }).count()).toBe(1);
    },
  },
  {
    name: "logs",
    title: "the request log with its charts",
    path: () => "/studio/logs",
    check: async (page) => {
      await page.locator('section[data-chart="requests"] svg.chart rect').first().waitFor();
      expect(await page.locator('section[data-chart="latency"] svg polyline').count()).toBe(2);
      expect(await page.locator("tbody tr").count()).toBe(100);
      expect(Number(await page.locator('[data-stat="errors"]').textContent())).toBeGreaterThan(0);
    },
  },
  {
    name: "metrics",
    title: "charts of what /metrics counts",
    path: () => "/studio/metrics",
    check: async (page, seeded) => {
      await page.locator('section[data-chart="requests"] svg.chart rect').first().waitFor();
      expect(await page.locator("section.card").count()).toBe(10);
      expect(await page.locator('section[data-chart="latency"] svg polyline').count()).toBe(2);
      // As many as the server holds (a room socket may have been dropped by a
      // relay reconnect on a loaded machine); five were opened.
      const open = await seeded.liveConnections();
      expect(Number(await page.locator('[data-figure="live"]').textContent())).toBe(open);
    },
  },
  {
    name: "live",
    title: "the open live connections and rooms",
    path: () => "/studio/live",
    check: async (page, seeded) => {
      await page.locator("tbody tr[data-id]").first().waitFor();
      const open = await seeded.liveConnections();
      expect(await page.locator(".total").first().textContent()).toBe(`${open} connections`);
      expect(await page.getByRole("button", { name: "Close" }).count()).toBe(open);
      expect(await page.locator('td[data-field="transport"]').allTextContents()).toEqual(
        expect.arrayContaining(["WebSocket", "SSE"]),
      );
    },
  },
];

const chromium = browserPerFile();

describe.each(testDatabases())("every studio page in a browser on $name", (database) => {
  const app = appServerPerTest(database, { ...STUDIO_APP, scope: "suite" });
  let server: AuthTestServer;
  let context: BrowserContext;
  const seeded: Seeded = {
    noteId: "",
    adaId: "",
    liveConnections: async () => {
      const text = await (
        await fetch(`${server.url}/metrics`, { headers: { accept: "text/plain" } })
      ).text();
      const open = Number(/^svc_live_connections (\d+)$/m.exec(text)?.[1] ?? "-1");
      expect(open).toBeGreaterThanOrEqual(3);
      return open;
    },
  };
  const sockets: WsClient[] = [];
  const stream = new AbortController();
  /** Script errors, console errors (a CSP refusal among them) and failed assets. */
  const problems: string[] = [];
  // The docs' screenshots are the SQLite run's (the database is open by the time they are taken).
  const shotsDir = (): string =>
    process.env.SVC_UPDATE_SCREENSHOTS === "1" &&
    matchTarget(app.target, { sqlite: () => true, postgres: () => false })
      ? DOCS_DIR
      : join(artifactsDir(), "studio-pages", database.name);

  beforeAll(async () => {
    server = app.server;
    await seed();
    context = await chromium.browser.newContext({ viewport: VIEWPORT });
    // Signed in once; every signed-in page shares the studio cookie.
    const page = await open("/studio");
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Entities of studio-app" }).waitFor();
    await page.close();
    mkdirSync(shotsDir(), { recursive: true });
  }, 120_000);

  afterAll(async () => {
    stream.abort();
    for (const socket of sockets) socket.socket.terminate();
    await context?.close();
  });

  /** Users, keys, rows, studio edits, jobs, an hour of traffic, and live connections. */
  async function seed(): Promise<void> {
    const ada = await registerPassword(server, "ada@example.com");
    await registerPassword(server, "grace@example.com");
    await registerPassword(server, "linus@example.com");
    seeded.adaId = ada.user_id;
    const key = await post(
      server,
      "/api/auth/api-keys",
      { name: "deploy bot" },
      { token: ada.token },
    );
    expect(key.status).toBe(200);
    const lists = await server.store.transaction(adminAuth, async (tx) => [
      await tx.insert("List", { name: "Groceries" }),
      await tx.insert("List", { name: "Launch plan", accessToken: "tok_do_not_show" }),
    ]);
    const titles = [
      "Buy oat milk",
      "Call the plumber",
      "Write the release notes",
      "Book the venue",
      "Renew the TLS certificate",
      "Water the plants",
      "Review the pull request",
      "Plan the sprint",
      "Order business cards",
      "Update the status page",
      "Back up the database",
      "Send the invoice",
    ];
    const notes = await server.store.transaction(adminAuth, async (tx) => {
      const rows = [];
      for (const [index, title] of titles.entries()) {
        rows.push(
          await tx.insert("Note", {
            title,
            count: (index * 7) % 10,
            done: index % 3 === 0,
            tag: index % 2 === 0 ? "red" : "blue",
            ownerId: index % 2 === 0 ? ada.user_id : "owner-7",
            listId: lists[index % 3]?.id ?? null,
            meta:
              index % 4 === 0
                ? { labels: ["home", "urgent"], estimate: { hours: index + 1 } }
                : null,
            createdAt: new Date(Date.UTC(2030, 0, 1, 9, index * 4)).toISOString(),
          }),
        );
      }
      return rows;
    });
    seeded.noteId = notes[1]?.id ?? "";

    // Studio actions, for the audit log.
    const studio = new StudioClient(server);
    await studio.signIn();
    await studio.post(`/studio/entities/Note/rows/${seeded.noteId}`, {
      title: "Call the plumber today",
    });
    await studio.post(`/studio/entities/List/rows/${lists[1]?.id ?? ""}`, {
      name: "Launch plan v2",
    });
    await studio.post("/studio/functions", { name: "echo", args: '{"n": 1}' });
    const scheduled = await readJSON<{ jobId: string }>(
      adminRequest(server, "POST", "/api/fn/scheduleRefused", { why: "demo" }),
    );
    // (expect.poll works inside tests only.)
    for (let tries = 0; ; tries++) {
      const job = await readJSON<{ status: string }>(
        adminRequest(server, "GET", `/api/admin/jobs/${scheduled.body.jobId}`),
      );
      if (job.body.status === "dead") break;
      if (tries > 200) throw new Error(`the refused job did not go dead: ${job.body.status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await adminRequest(server, "POST", "/api/fn/scheduleLater", { remind: "ada" });
    await adminRequest(server, "POST", "/api/fn/scheduleLater", { remind: "grace" });

    // Twelve minutes of traffic, with a metrics sample after each.
    for (let minute = 0; minute < 12; minute++) {
      for (let n = 0; n < 6 + ((minute * 5) % 9); n++) {
        await adminRequest(server, "POST", "/api/fn/echo", { n });
        await fetch(`${server.url}/api/entities/Note`, {
          headers: { authorization: `Bearer ${ada.token}` },
        });
      }
      await adminRequest(server, "POST", "/api/entities/Note", {
        title: `note ${minute}`,
        count: minute,
        done: false,
        tag: "red",
        ownerId: "owner-7",
      }).then((r) => r.text());
      if (minute % 3 === 1) await fetch(`${server.url}/api/entities/Nope`);
      if (minute % 4 === 2) await adminRequest(server, "POST", "/api/fn/crash", {});
      server.clock.advance(60_000);
      await studio.get("/studio/metrics");
    }
    // Back to the twelve rows the pages show.
    await server.store.transaction(adminAuth, async (tx) => {
      for (const row of (await tx.query("Note", { where: { ownerId: "owner-7" }, limit: 100 }))
        .rows) {
        if (String(row.title).startsWith("note ")) await tx.delete("Note", row.id);
      }
    });
    server.internalErrors.length = 0;

    // Live connections: two WebSockets, two room members, an SSE stream.
    const ws = await connectWs(server, {
      token: ada.token,
      headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0" },
    });
    ws.send({ type: "subscribe", id: "my-notes", entity: "Note", where: { ownerId: ada.user_id } });
    await ws.next();
    const query = await connectWs(server, {
      token: ada.token,
      headers: { "user-agent": "svc-client/0.1 (node)" },
    });
    query.send({ type: "subscribe", id: "echo", query: "echo", args: { live: true } });
    await query.next();
    const lobbyA = await connectWs(server, { token: ada.token, path: "/shard/lobby/launch" });
    const lobbyB = await connectWs(server, { token: ada.token, path: "/shard/lobby/launch" });
    sockets.push(ws, query, lobbyA, lobbyB);
    const events = await fetch(`${server.url}/events?entity=List`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "user-agent": "curl/8.5.0" },
      signal: stream.signal,
    });
    expect(events.status).toBe(200);
    // A minute on: the Metrics page samples again, with the connections open.
    server.clock.advance(60_000);
  }

  async function open(path: string): Promise<Page> {
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("response", (response) => {
      if (!response.ok() && response.request().resourceType() !== "document") {
        problems.push(
          `${response.request().resourceType()} ${response.url()}: ${response.status()}`,
        );
      }
    });
    const answer = await page.goto(`${server.url}${path}`);
    expect(answer?.status(), path).toBe(200);
    return page;
  }

  it.each(PAGES)("shows $title ($name), readable, and photographed", async (pageCase) => {
    const target = pageCase.path(seeded);
    const own =
      pageCase.signedIn === false
        ? await chromium.browser.newContext({ viewport: VIEWPORT })
        : undefined;
    await screenshotOnFailure(
      own ?? context,
      `studio-page-${pageCase.name}-${database.name}`,
      async () => {
        const page =
          own === undefined
            ? await open(target)
            : await (async () => {
                const fresh = await own.newPage();
                await fresh.goto(`${server.url}${target}`);
                return fresh;
              })();
        await pageCase.check(page, seeded);
        // The stylesheet applied (the CSP allows the studio's own), and no header wraps.
        const style = await page.locator("header.top").evaluate(
          (element) =>
            (
              globalThis as unknown as {
                getComputedStyle(element: unknown): { borderBottomStyle: string };
              }
            ).getComputedStyle(element).borderBottomStyle,
        );
        expect(style).toBe("solid");
        for (const header of await page.locator("thead th").all()) {
          expect(
            await header.evaluate(
              (element) =>
                (
                  globalThis as unknown as {
                    getComputedStyle(element: unknown): { whiteSpace: string };
                  }
                ).getComputedStyle(element).whiteSpace,
            ),
          ).toBe("nowrap");
        }
        // Nothing secret reached the page.
        const markup = await page.content();
        for (const secret of [ADMIN_TOKEN, "tok_do_not_show"]) expect(markup).not.toContain(secret);
        const shot = await page.screenshot();
        // A PNG as wide as the viewport.
        expect(shot.subarray(1, 4).toString("latin1")).toBe("PNG");
        expect(shot.readUInt32BE(16)).toBe(VIEWPORT.width);
        writeFileSync(join(shotsDir(), `studio-${pageCase.name}.png`), shot);
        await page.close();
      },
    );
    await own?.close();
    expect(problems.splice(0)).toEqual([]);
    expect(server.internalErrors).toEqual([]);
  });
});
