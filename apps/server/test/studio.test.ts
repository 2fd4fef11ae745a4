import { adminAuth } from "@svc/store";
import { testDatabases } from "@svc/tooling/databases";
import { beforeEach, describe, expect, it } from "vitest";
import { type AuthTestServer, errorOf, post, readJSON, registerPassword } from "./auth-fixtures.js";
import { ADMIN_TOKEN, adminRequest } from "./fixtures.js";
import {
  alertOf,
  isSignInForm,
  rowsOf,
  StudioClient,
  type StudioPage,
  studioPerTest,
  textOf,
} from "./studio-fixtures.js";

// The admin studio through the composed server, on every database: its
// sign-in, session and CSRF gates, the entity pages (paging, filters,
// insert, edit, delete, validation errors as pages), functions, policies
// with their SQL, account metadata without secrets, audit, jobs, and the
// escaping of every value a row or a URL brings.

/** Markup that would run in a browser if any page echoed it unescaped. */
const XSS = `<script>alert("x")</script><img src=x onerror=alert(1)>"'`;

/** Asserts a page shows `XSS` (as text or inside JSON) only escaped. */
function expectEscaped(page: StudioPage): void {
  expect(page.html).not.toContain("<script>alert");
  expect(page.html).not.toContain("<img src=x");
  expect(page.html).toContain("&lt;script&gt;alert(");
  expect(page.html).toContain("&lt;img src=x onerror=alert(1)&gt;");
}

interface NoteRow {
  readonly id: string;
  readonly title: string;
  readonly count: number;
  readonly done: boolean;
  readonly tag: string;
  readonly meta: unknown;
  readonly ownerId: string;
  readonly listId: string | null;
  readonly createdAt: string;
}

describe.each(testDatabases())("the admin studio on $name", (database) => {
  // After each test: no page, however bad its input, was an unexpected error.
  const app = studioPerTest(database, { signIn: false });
  let server: AuthTestServer;
  let studio: StudioClient;

  beforeEach(() => {
    ({ server, studio } = app);
  });

  /** Inserts Notes with the admin's rights, straight through the store. */
  async function insertNotes(notes: readonly Partial<Omit<NoteRow, "id">>[]): Promise<NoteRow[]> {
    return server.store.transaction(adminAuth, async (tx) => {
      const rows: NoteRow[] = [];
      for (const note of notes) {
        rows.push(
          (await tx.insert("Note", {
            title: "note",
            count: 0,
            done: false,
            tag: "red",
            ownerId: "owner-1",
            ...note,
          })) as unknown as NoteRow,
        );
      }
      return rows;
    });
  }

  async function noteById(id: string): Promise<NoteRow | null> {
    return (await server.store.reader(adminAuth).get("Note", id)) as unknown as NoteRow | null;
  }

  describe("signing in", () => {
    it("opens with the admin token: a random session cookie (HttpOnly, SameSite=Strict, /studio), never the token", async () => {
      const front = await studio.get("/studio");
      expect(front.status).toBe(200);
      expect(isSignInForm(front)).toBe(true);

      const answer = await studio.post("/studio/sign-in", { token: ADMIN_TOKEN }, { csrf: null });
      expect(answer.status).toBe(303);
      expect(answer.location).toBe("/studio");
      const cookie = answer.headers.getSetCookie().find((c) => c.startsWith("svc_studio="));
      expect(cookie).toMatch(
        /^svc_studio=[0-9a-f]{64}; Path=\/studio; Max-Age=28800; HttpOnly; SameSite=Strict$/,
      );
      expect(cookie).not.toContain(ADMIN_TOKEN);

      const home = await studio.get("/studio");
      expect(home.status).toBe(200);
      expect(isSignInForm(home)).toBe(false);
      expect(home.html).toContain('href="/studio/entities/Note"');
      expect(home.html).toContain('action="/studio/sign-out"');
    });

    it("says where the generated token is kept only in dev mode", async () => {
      expect((await studio.get("/studio")).html).not.toContain(".svc/admin-token");
      server = await app.restart({ SVC_DEV_MODE: "true" });
      studio = new StudioClient(server);
      const front = await studio.get("/studio");
      expect(isSignInForm(front)).toBe(true);
      expect(front.html).toContain(".svc/admin-token");
      // Dev mode opens no back door: the pages still need the token.
      expect((await studio.get("/studio/entities/Note")).status).toBe(401);
      expect((await studio.signIn()).status).toBe(200);
    });

    it("marks the cookie Secure when the request came over https", async () => {
      server = await app.restart({ SVC_TRUST_PROXY: "loopback" });
      studio = new StudioClient(server);
      const answer = await studio.request("POST", "/studio/sign-in", {
        form: { token: ADMIN_TOKEN },
        headers: { "x-forwarded-proto": "https", origin: server.url.replace("http:", "https:") },
      });
      expect(answer.status).toBe(303);
      expect(answer.headers.getSetCookie().join("\n")).toMatch(
        /svc_studio=[0-9a-f]{64}; Path=\/studio; Max-Age=\d+; HttpOnly; SameSite=Strict; Secure/,
      );
    });

    it.each([
      ["a wrong token", "b".repeat(128)],
      ["the token's prefix", ADMIN_TOKEN.slice(0, 64)],
      ["the token with more after it", `${ADMIN_TOKEN}a`],
      ["an empty token", ""],
      ["a huge token", "a".repeat(10_000)],
    ])("refuses %s with 401 and the form again, and sets no cookie", async (_label, token) => {
      const answer = await studio.post("/studio/sign-in", { token }, { csrf: null });
      expect(answer.status).toBe(401);
      expect(alertOf(answer)?.code).toBe("INVALID_TOKEN");
      expect(isSignInForm(answer)).toBe(true);
      expect(answer.headers.getSetCookie()).toEqual([]);
      expect(studio.cookie).toBeUndefined();
      expect((await studio.get("/studio/entities/Note")).status).toBe(401);
    });

    it("refuses a sign-in posted by another site (login CSRF), with no cookie", async () => {
      const foreign = await studio.post(
        "/studio/sign-in",
        { token: ADMIN_TOKEN },
        { csrf: null, origin: "https://evil.example" },
      );
      expect(foreign.status).toBe(403);
      expect(alertOf(foreign)?.code).toBe("CSRF_FAILED");
      expect(foreign.headers.getSetCookie()).toEqual([]);
      const crossSite = await studio.request("POST", "/studio/sign-in", {
        form: { token: ADMIN_TOKEN },
        headers: { "sec-fetch-site": "cross-site" },
      });
      expect(crossSite.status).toBe(403);
      expect(crossSite.headers.getSetCookie()).toEqual([]);
    });

    // What deployment/studio.md says: Sec-Fetch-Site is read only when Origin is absent.
    it("reads Sec-Fetch-Site only without an Origin, refusing same-site as well as cross-site", async () => {
      const sameSite = await studio.request("POST", "/studio/sign-in", {
        form: { token: ADMIN_TOKEN },
        headers: { "sec-fetch-site": "same-site" },
      });
      expect(sameSite.status).toBe(403);
      expect(alertOf(sameSite)?.code).toBe("CSRF_FAILED");
      const ownOrigin = await studio.request("POST", "/studio/sign-in", {
        form: { token: ADMIN_TOKEN },
        headers: { origin: server.url, "sec-fetch-site": "cross-site" },
      });
      expect(ownOrigin.status).toBe(303);
      const noHeaders = await studio.request("POST", "/studio/sign-in", {
        form: { token: ADMIN_TOKEN },
      });
      expect(noHeaders.status).toBe(303);
    });

    it("returns to the page that asked for sign-in, and never to another site", async () => {
      const wanted = "/studio/entities/Note?field=done&value=true";
      const asked = await studio.get(wanted);
      expect(asked.status).toBe(401);
      expect(isSignInForm(asked)).toBe(true);
      expect(asked.html).toContain(
        `name="next" value="/studio/entities/Note?field=done&amp;value=true"`,
      );
      const back = await studio.post(
        "/studio/sign-in",
        { token: ADMIN_TOKEN, next: wanted },
        { csrf: null },
      );
      expect(back.location).toBe(wanted);

      for (const next of [
        "//evil.example/studio",
        "https://evil.example/studio",
        "/\\evil.example",
        "/studio\\@evil.example",
        "/studio/../evil",
        "/studio/%2e%2e/evil",
        "/studiox",
        "/studio/\u0000",
        " /studio",
        "javascript:alert(1)",
        "/studio/sign-out",
      ]) {
        const answer = await new StudioClient(server).post(
          "/studio/sign-in",
          { token: ADMIN_TOKEN, next },
          { csrf: null },
        );
        expect(answer.location, next).toBe("/studio");
      }
      // A wrong token keeps only a safe return path in the form.
      const wrong = await studio.post(
        "/studio/sign-in",
        { token: "wrong", next: "//evil.example" },
        { csrf: null },
      );
      expect(wrong.html).not.toContain("evil.example");
    });

    it("signs out: the cookie is cleared and the old session no longer opens a page", async () => {
      await studio.signIn();
      const oldCookie = studio.cookie;
      const out = await studio.post("/studio/sign-out");
      expect(out.status).toBe(303);
      expect(out.headers.getSetCookie().join("\n")).toMatch(
        /svc_studio=; Path=\/studio; Max-Age=0/,
      );
      expect(studio.cookie).toBeUndefined();
      studio.cookie = oldCookie;
      const after = await studio.get("/studio/entities/Note");
      expect(after.status).toBe(401);
      expect(isSignInForm(after)).toBe(true);
    });

    it("ends a session after eight hours", async () => {
      await studio.signIn();
      server.clock.advance(8 * 60 * 60 * 1000 - 1);
      expect((await studio.get("/studio/jobs")).status).toBe(200);
      server.clock.advance(1);
      expect((await studio.get("/studio/jobs")).status).toBe(401);
    });

    it("limits sign-in attempts per address (the sign-in endpoints' limit, with Retry-After)", async () => {
      // Regression: the studio's error page dropped the limiter's Retry-After header.
      // 60 per minute per address, shared with /api/auth sign-ins.
      for (let attempt = 0; attempt < 60; attempt++) {
        const answer = await studio.post("/studio/sign-in", { token: "guess" }, { csrf: null });
        expect(answer.status).toBe(401);
      }
      const limited = await studio.post("/studio/sign-in", { token: ADMIN_TOKEN }, { csrf: null });
      expect(limited.status).toBe(429);
      expect(alertOf(limited)?.code).toBe("RATE_LIMITED");
      expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(limited.headers.getSetCookie()).toEqual([]);
      server.clock.advance(60_000);
      expect(
        (await studio.post("/studio/sign-in", { token: ADMIN_TOKEN }, { csrf: null })).status,
      ).toBe(303);
    });
  });

  describe("the gates", () => {
    it.each([
      "/studio/entities/Note",
      "/studio/entities/Note/new",
      "/studio/functions",
      "/studio/policies/Note",
      "/studio/users",
      "/studio/sessions",
      "/studio/api-keys",
      "/studio/audit",
      "/studio/jobs",
      "/studio/logs",
      "/studio/metrics",
      "/studio/live",
    ])("GET %s without a session answers 401 with the sign-in form", async (path) => {
      const page = await studio.get(path);
      expect(page.status).toBe(401);
      expect(isSignInForm(page)).toBe(true);
      expect(alertOf(page)?.code).toBe("AUTH_REQUIRED");
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    });

    it("sends the security headers on every page, the sign-in form included", async () => {
      for (const page of [await studio.get("/studio"), await studio.get("/studio/jobs")]) {
        expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
        expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
        expect(page.headers.get("x-frame-options")).toBe("DENY");
        expect(page.headers.get("cache-control")).toBe("no-store");
        expect(page.headers.get("x-content-type-options")).toBe("nosniff");
      }
    });

    it("changes nothing for a POST without a session, a CSRF token or the page's origin", async () => {
      const [note] = await insertNotes([{ title: "kept" }]);
      const id = note?.id ?? "";
      const edit = `/studio/entities/Note/rows/${id}`;
      const anonymous = await studio.post(edit, { title: "anonymous" }, { csrf: null });
      expect(anonymous.status).toBe(401);

      await studio.signIn();
      const attempts: [string, StudioPage][] = [
        ["no token", await studio.post(edit, { title: "no token" }, { csrf: null })],
        ["wrong token", await studio.post(edit, { title: "wrong" }, { csrf: "0".repeat(64) })],
        ["short token", await studio.post(edit, { title: "short" }, { csrf: "x" })],
        [
          "another origin",
          await studio.post(edit, { title: "evil" }, { origin: "https://evil.example" }),
        ],
        ["null origin", await studio.post(edit, { title: "null" }, { origin: "null" })],
        [
          "cross-site fetch",
          await studio.request("POST", edit, {
            form: { _csrf: studio.csrf ?? "", title: "cross" },
            headers: { "sec-fetch-site": "cross-site" },
          }),
        ],
        [
          "a JSON body",
          await studio.request("POST", edit, {
            headers: { "content-type": "application/json", origin: server.url },
          }),
        ],
      ];
      for (const [label, page] of attempts) {
        expect(page.status, label).toBe(403);
        expect(alertOf(page)?.code, label).toBe("CSRF_FAILED");
      }
      // Each state-changing form checks it too, not only the edit.
      for (const path of [
        "/studio/entities/Note/new",
        `/studio/entities/Note/rows/${id}/delete`,
        "/studio/functions",
        `/studio/jobs/${"0".repeat(32)}/retry`,
        `/studio/jobs/${"0".repeat(32)}/cancel`,
        `/studio/live/${"0".repeat(24)}/close`,
        "/studio/sign-out",
      ]) {
        const page = await studio.post(path, { title: "x", name: "echo" }, { csrf: null });
        expect(page.status, path).toBe(403);
      }
      expect((await noteById(id))?.title).toBe("kept");
      // The session still works with its token (sign-out was refused).
      expect((await studio.get("/studio/entities/Note")).status).toBe(200);
    });

    it("refuses a form body over the body limit with a 400 page", async () => {
      await studio.signIn();
      const page = await studio.post("/studio/functions", {
        name: "echo",
        args: JSON.stringify({ big: "x".repeat(1024 * 1024) }),
      });
      expect(page.status).toBe(400);
      expect(alertOf(page)?.code).toBe("INVALID_FORM");
    });

    it("answers an unknown studio page or entity with a 404 page", async () => {
      await studio.signIn();
      for (const path of [
        "/studio/nope",
        "/studio/entities/Nope",
        "/studio/policies/Nope",
        `/studio/entities/Note/rows/${"0".repeat(40)}`,
      ]) {
        const page = await studio.get(path);
        expect(page.status, path).toBe(404);
        expect(page.headers.get("content-type")).toMatch(/^text\/html/);
        expect(alertOf(page)?.code, path).toMatch(/NOT_FOUND$/);
      }
    });
  });

  describe("entities", () => {
    beforeEach(async () => {
      await studio.signIn();
    });

    it("pages through every row, 50 at a time, and filters by field", async () => {
      await insertNotes(
        Array.from({ length: 55 }, (_, index) => ({
          title: `note ${index}`,
          count: index,
          done: index % 5 === 0,
        })),
      );
      const first = await studio.get("/studio/entities/Note");
      expect(first.status).toBe(200);
      expect(rowsOf(first)).toHaveLength(50);
      const next = /<a href="([^"]*)" rel="next">/.exec(first.html)?.[1]?.replaceAll("&amp;", "&");
      // Newest first by default (Note has createdAt), and the pager keeps the order.
      expect(next).toMatch(/^\/studio\/entities\/Note\?sort=createdAt&dir=desc&cursor=/);
      const second = await studio.get(next ?? "");
      expect(rowsOf(second)).toHaveLength(5);
      expect(second.html).not.toContain('rel="next"');
      const titles = [...rowsOf(first), ...rowsOf(second)].map((row) => row.cells.title);
      expect(new Set(titles).size).toBe(55);

      const done = await studio.get("/studio/entities/Note?field=done&value=true");
      expect(
        rowsOf(done)
          .map((row) => row.cells.count)
          .sort((a, b) => Number(a) - Number(b)),
      ).toEqual(["0", "5", "10", "15", "20", "25", "30", "35", "40", "45", "50"]);
      expect(rowsOf(done).every((row) => row.cells.done === "true")).toBe(true);
      const byCount = await studio.get("/studio/entities/Note?field=count&value=42");
      expect(rowsOf(byCount).map((row) => row.cells.title)).toEqual(["note 42"]);
      const none = await studio.get("/studio/entities/Note?field=title&value=absent");
      expect(rowsOf(none)).toEqual([]);
      expect(none.html).toContain("No rows match the filter.");
    });

    it("shows the entities with their number of rows on the home page", async () => {
      await insertNotes([{ title: "a" }, { title: "b" }]);
      const home = await studio.get("/studio");
      const count = (entity: string): string | undefined =>
        new RegExp(
          `<a href="/studio/entities/${entity}">${entity}</a></td><td data-field="rows" class="num">([^<]*)</td>`,
        ).exec(home.html)?.[1];
      expect(count("Note")).toBe("2");
      expect(count("List")).toBe("0");
      expect(home.html).toContain('<a href="/studio" aria-current="page">Entities</a>');
    });

    it("orders rows newest first by default, sorts by any column on the server and shows the total", async () => {
      const notes = await insertNotes([
        { title: "old", count: 3, done: true, createdAt: "2024-01-01T00:00:00.000Z" },
        { title: "new", count: 1, createdAt: "2024-03-01T00:00:00.000Z" },
        { title: "mid", count: 2, createdAt: "2024-02-01T00:00:00.000Z" },
      ]);
      const titles = (page: StudioPage): (string | undefined)[] =>
        rowsOf(page).map((row) => row.cells.title);
      const byDefault = await studio.get("/studio/entities/Note");
      expect(titles(byDefault)).toEqual(["new", "mid", "old"]);
      expect(byDefault.html).toContain('<span class="total">3 rows</span>');
      // The sorted column says so, and its header link turns the order around.
      expect(byDefault.html).toMatch(
        /<th scope="col"[^>]* aria-sort="descending"><a class="sort" href="\/studio\/entities\/Note\?sort=createdAt&amp;dir=asc"/,
      );

      const ascending = await studio.get("/studio/entities/Note?sort=count&dir=asc");
      expect(titles(ascending)).toEqual(["new", "mid", "old"]);
      expect(rowsOf(ascending).map((row) => row.cells.count)).toEqual(["1", "2", "3"]);
      const descending = await studio.get("/studio/entities/Note?sort=title&dir=desc");
      expect(titles(descending)).toEqual(["old", "new", "mid"]);
      const byId = await studio.get("/studio/entities/Note?sort=id");
      expect(rowsOf(byId).map((row) => row.id)).toEqual(notes.map((note) => note.id).sort());

      const filtered = await studio.get("/studio/entities/Note?field=done&value=true");
      expect(titles(filtered)).toEqual(["old"]);
      expect(filtered.html).toContain('<span class="total">1 row where done = true</span>');
      // The filter keeps the order, the sort links keep the filter.
      expect(filtered.html).toContain(
        'href="/studio/entities/Note?field=done&amp;value=true&amp;sort=count&amp;dir=asc"',
      );
    });

    it("shortens ids with the whole id to copy, links relations and folds long JSON", async () => {
      const list = await server.store.transaction(adminAuth, (tx) =>
        tx.insert("List", { name: "Groceries" }),
      );
      const meta = { items: Array.from({ length: 12 }, (_, n) => `item ${n}`) };
      const [note] = await insertNotes([{ title: "with a list", listId: list.id, meta }]);
      const id = note?.id ?? "";
      const page = await studio.get("/studio/entities/Note");
      const [row] = rowsOf(page);
      expect(row?.cells.id).toBe(`${id.slice(0, 8)}…`);
      expect(page.html).toContain(
        `<span class="id" title="${id}"><a href="/studio/entities/Note/rows/${id}"><code>${id.slice(0, 8)}…</code></a><button type="button" class="copy" data-copy="${id}"`,
      );
      // The relation links to the List's row.
      expect(page.html).toContain(
        `<a href="/studio/entities/List/rows/${list.id}"><code>${list.id.slice(0, 8)}…</code></a>`,
      );
      expect((await studio.get(`/studio/entities/List/rows/${list.id}`)).status).toBe(200);
      // Long JSON is folded, its whole text inside.
      const metaCell = /<td data-field="meta"[^>]*>([\s\S]*?)<\/td>/.exec(page.html)?.[1] ?? "";
      expect(metaCell).toMatch(/^<details class="fold"><summary><code>\{&quot;items&quot;:\[/);
      expect(metaCell).toContain("&quot;item 11&quot;");
      // The row form links the relation too.
      const form = await studio.get(`/studio/entities/Note/rows/${id}`);
      expect(form.html).toContain(
        `<a href="/studio/entities/List/rows/${list.id}">Open the List</a>`,
      );
    });

    it("edits one cell in place: only that field is written, and the list page comes back", async () => {
      const [note] = await insertNotes([{ title: "before", count: 4, tag: "red" }]);
      const id = note?.id ?? "";
      const list = await studio.get("/studio/entities/Note?sort=count&dir=desc");
      // The cells say how the studio's script edits them.
      expect(list.html).toContain(`data-row-url="/studio/entities/Note/rows/__id__"`);
      expect(list.html).toMatch(
        /<td data-field="tag" data-edit="choice" data-value="red" data-choices="\[&quot;red&quot;,&quot;blue&quot;\]"/,
      );
      expect(list.html).not.toMatch(/<td data-field="ownerId"[^>]*data-edit/);
      const saved = await studio.post(`/studio/entities/Note/rows/${id}`, {
        title: "after",
        _return: "/studio/entities/Note?sort=count&dir=desc",
      });
      expect(saved.status).toBe(303);
      expect(saved.location).toBe("/studio/entities/Note?sort=count&dir=desc&done=updated");
      expect(await noteById(id)).toMatchObject({ title: "after", count: 4, tag: "red" });
      expect((await studio.get(saved.location ?? "")).html).toContain("Row saved.");

      // A refused value: the store's error on the row's form, the other fields as stored.
      const refused = await studio.post(`/studio/entities/Note/rows/${id}`, {
        count: "many",
        _return: "/studio/entities/Note",
      });
      expect(refused.status).toBe(400);
      expect(alertOf(refused)?.code).toBe("INVALID_FIELD");
      expect(refused.html).toContain('name="count" type="number" step="1" value="many"');
      expect(refused.html).toContain('name="title" type="text" value="after"');
      expect((await noteById(id))?.count).toBe(4);

      // A return path off the studio is ignored.
      const elsewhere = await studio.post(`/studio/entities/Note/rows/${id}`, {
        title: "again",
        _return: "https://evil.example/studio",
      });
      expect(elsewhere.location).toBe(`/studio/entities/Note?field=id&value=${id}&done=updated`);
    });

    it.each([
      ["a json sort field", "/studio/entities/Note?sort=meta", "INVALID_QUERY"],
      ["an unknown sort field", "/studio/entities/Note?sort=nope", "INVALID_QUERY"],
      ["a bad direction", "/studio/entities/Note?sort=count&dir=up", "INVALID_FORM"],
      [
        "a filter value over 1024 characters",
        `/studio/entities/Note?field=title&value=${"x".repeat(1025)}`,
        "INVALID_FORM",
      ],
      ["a repeated sort", "/studio/entities/Note?sort=count&sort=title", "INVALID_FORM"],
    ])("answers %s with 400 and the error on the page", async (_label, path, code) => {
      const page = await studio.get(path);
      expect(page.status).toBe(400);
      expect(alertOf(page)?.code).toBe(code);
    });

    it("shows a bad filter or cursor as a page with the error, not a 500", async () => {
      for (const path of [
        "/studio/entities/Note?field=nope&value=1",
        "/studio/entities/Note?field=count&value=many",
        "/studio/entities/Note?cursor=garbage",
        "/studio/entities/Note?field=a&field=b",
        "/studio/entities/Note/rows/nope",
      ]) {
        const page = await studio.get(path);
        expect(page.status, path).toBe(400);
        expect(page.headers.get("content-type")).toMatch(/^text\/html/);
        expect(alertOf(page), path).toBeDefined();
      }
    });

    it("edits a row: the list shows the change and so does the API", async () => {
      const [note] = await insertNotes([{ title: "before", count: 1, meta: { a: 1 } }]);
      const id = note?.id ?? "";
      const form = await studio.get(`/studio/entities/Note/rows/${id}`);
      expect(form.status).toBe(200);
      expect(form.html).toContain('name="title" type="text" value="before"');

      const saved = await studio.post(`/studio/entities/Note/rows/${id}`, {
        title: "after",
        count: "7",
        done: "true",
        tag: "blue",
        meta: '{"b": [1, 2]}',
        ownerId: "owner-1",
      });
      expect(saved.status).toBe(303);
      const list = await studio.get(saved.location ?? "");
      expect(list.html).toContain("Row saved.");
      expect(rowsOf(list)).toEqual([
        {
          id,
          cells: expect.objectContaining({
            title: "after",
            count: "7",
            done: "true",
            tag: "blue",
            meta: '{"b":[1,2]}',
          }),
        },
      ]);
      const api = await readJSON<NoteRow>(adminRequest(server, "GET", `/api/entities/Note/${id}`));
      expect(api.body).toMatchObject({
        id,
        title: "after",
        count: 7,
        done: true,
        tag: "blue",
        meta: { b: [1, 2] },
        ownerId: "owner-1",
      });
    });

    it.each([
      ["a number that is not one", { count: "many" }, "INVALID_FIELD"],
      ["a value outside the enum", { tag: "green" }, "INVALID_FIELD"],
      ["invalid JSON", { meta: "{nope" }, "INVALID_JSON"],
      ["a new owner", { ownerId: "someone-else" }, "OWNER_IMMUTABLE"],
    ])(
      "shows %s as the form again with the error (400), the row unchanged",
      async (_label, change, code) => {
        const [note] = await insertNotes([{ title: "same", count: 3 }]);
        const id = note?.id ?? "";
        await studio.get(`/studio/entities/Note/rows/${id}`);
        const fields = {
          title: "typed",
          count: "3",
          done: "false",
          tag: "red",
          ownerId: "owner-1",
          ...change,
        };
        const page = await studio.post(`/studio/entities/Note/rows/${id}`, fields);
        expect(page.status).toBe(400);
        expect(page.headers.get("content-type")).toMatch(/^text\/html/);
        expect(alertOf(page)?.code).toBe(code);
        // The form comes back with what was typed; nothing was written.
        expect(page.html).toContain('name="title" type="text" value="typed"');
        expect((await noteById(id))?.title).toBe("same");
      },
    );

    it("refuses a form with a repeated field (400 INVALID_FORM)", async () => {
      const [note] = await insertNotes([{ title: "same" }]);
      const id = note?.id ?? "";
      await studio.get(`/studio/entities/Note/rows/${id}`);
      const page = await studio.request("POST", `/studio/entities/Note/rows/${id}`, {
        headers: { origin: server.url, "content-type": "application/x-www-form-urlencoded" },
        rawBody: `_csrf=${studio.csrf ?? ""}&title=a&title=b`,
      });
      expect(page.status).toBe(400);
      expect(alertOf(page)?.code).toBe("INVALID_FORM");
      expect((await noteById(id))?.title).toBe("same");
    });

    it("inserts a row from the form, and shows a missing field as the form again", async () => {
      const form = await studio.get("/studio/entities/Note/new");
      expect(form.status).toBe(200);
      expect(form.html).toContain('<select id="field-tag" name="tag">');
      const inserted = await studio.post("/studio/entities/Note/new", {
        title: "made in the studio",
        count: "2",
        done: "false",
        tag: "red",
        meta: "",
        ownerId: "owner-9",
        createdAt: "",
      });
      expect(inserted.status).toBe(303);
      const list = await studio.get(inserted.location ?? "");
      expect(list.html).toContain("Row inserted.");
      const [row] = rowsOf(list);
      expect(row?.cells).toMatchObject({
        title: "made in the studio",
        meta: "null",
        ownerId: "owner-9",
      });
      expect(await noteById(row?.id ?? "")).toMatchObject({ count: 2, meta: null });

      const missing = await studio.post("/studio/entities/Note/new", {
        title: "no owner",
        count: "1",
        done: "true",
        tag: "red",
      });
      expect(missing.status).toBe(400);
      expect(alertOf(missing)?.code).toBe("MISSING_FIELD");
      expect(missing.html).toContain('value="no owner"');
    });

    it("deletes a row, and a second delete is a 404 page", async () => {
      const [note] = await insertNotes([{ title: "doomed" }]);
      const id = note?.id ?? "";
      const deleted = await studio.post(`/studio/entities/Note/rows/${id}/delete`);
      expect(deleted.status).toBe(303);
      expect((await studio.get(deleted.location ?? "")).html).toContain("Row deleted.");
      expect(await noteById(id)).toBeNull();
      const again = await studio.post(`/studio/entities/Note/rows/${id}/delete`);
      expect(again.status).toBe(404);
      expect(alertOf(again)?.code).toBe("NOT_FOUND");
    });

    it("escapes every value a row or a URL brings (XSS)", async () => {
      const [note] = await insertNotes([{ title: XSS, meta: { html: XSS }, ownerId: XSS }]);
      const id = note?.id ?? "";
      const list = await studio.get("/studio/entities/Note");
      expectEscaped(list);
      expect(rowsOf(list)[0]?.cells.title).toBe(XSS);
      expectEscaped(await studio.get(`/studio/entities/Note/rows/${id}`));
      expectEscaped(
        await studio.get(`/studio/entities/Note?field=title&value=${encodeURIComponent(XSS)}`),
      );
      const refused = await studio.post(`/studio/entities/Note/rows/${id}`, {
        title: XSS,
        count: XSS,
      });
      expect(refused.status).toBe(400);
      expectEscaped(refused);
      // Notices come from a fixed table; nothing of `done` is echoed.
      for (const done of [XSS, "__proto__", "constructor"]) {
        const page = await studio.get(`/studio/entities/Note?done=${encodeURIComponent(done)}`);
        expect(page.status).toBe(200);
        expect(page.html).not.toContain('role="status"');
      }
    });
  });

  describe("functions", () => {
    beforeEach(async () => {
      await studio.signIn();
    });

    it("runs a function with JSON arguments as the admin and shows the result", async () => {
      const page = await studio.get("/studio/functions");
      for (const name of ["crash", "echo", "refuse", "scheduleLater", "scheduleRefused"]) {
        expect(page.html).toContain(`<option value="${name}"`);
      }
      const ran = await studio.post("/studio/functions", {
        name: "echo",
        args: JSON.stringify({ n: 1, text: XSS }),
      });
      expect(ran.status).toBe(200);
      const result = /<pre class="result">([\s\S]*?)<\/pre>/.exec(ran.html)?.[1] ?? "";
      expect(JSON.parse(textOf(result))).toEqual({ echoed: { n: 1, text: XSS }, admin: true });
      expectEscaped(ran);
      // The picker keeps the choice and the arguments.
      expect(ran.html).toContain('<option value="echo" selected>');
    });

    it.each([
      ["an error the function raises", { name: "refuse", args: "{}" }, 403, "REFUSED"],
      ["an unknown function", { name: "nope", args: "{}" }, 404, "FUNCTION_NOT_FOUND"],
      ["arguments that are not JSON", { name: "echo", args: "{oops" }, 400, "INVALID_JSON"],
    ])("shows %s as the error envelope with its status", async (_label, form, status, code) => {
      const page = await studio.post("/studio/functions", form);
      expect(page.status).toBe(status);
      const shown = /<pre class="error">([\s\S]*?)<\/pre>/.exec(page.html)?.[1] ?? "";
      expect(JSON.parse(textOf(shown))).toEqual({ error: { code, message: expect.any(String) } });
    });
    it("shows an unexpected error as the generic 500 envelope and logs it", async () => {
      // Regression: the studio dropped a crashing function's error instead of logging it.
      const page = await studio.post("/studio/functions", { name: "crash", args: "{}" });
      expect(page.status).toBe(500);
      expect(page.html).not.toContain("hunter2");
      expect(page.html).not.toMatch(/at .*\.mjs|node:internal/);
      const shown = /<pre class="error">([\s\S]*?)<\/pre>/.exec(page.html)?.[1] ?? "";
      expect(JSON.parse(textOf(shown))).toEqual({
        error: { code: "FUNCTION_FAILED", message: expect.any(String) },
      });
      expect(server.internalErrors).toHaveLength(1);
      const logged = server.internalErrors[0] as Error;
      expect(String(logged.cause)).toContain("hunter2");
      server.internalErrors.length = 0;
    });
  });

  describe("policies", () => {
    beforeEach(async () => {
      await studio.signIn();
    });

    it("shows each action explained for a caller, with a read's SQL for SQLite and Postgres", async () => {
      const page = await studio.get(
        `/studio/policies/Note?caller=${encodeURIComponent('{"userId":"u1"}')}`,
      );
      expect(page.status).toBe(200);
      expect(page.html).toContain("auth.userId == data.ownerId");
      const explained = (action: string, dialect: string): string =>
        textOf(
          new RegExp(
            `<pre class="explain" data-action="${action}" data-dialect="${dialect}">([\\s\\S]*?)</pre>`,
          ).exec(page.html)?.[1] ?? "",
        );
      expect(explained("read", "sqlite")).toContain(
        'query: select * from "Note" where "ownerId" = ?   -- parameters ["u1"]',
      );
      expect(explained("read", "postgres")).toContain(
        'query: select * from "Note" where "ownerId" = $1   -- parameters ["u1"]',
      );
      for (const action of ["insert", "update", "delete"]) {
        expect(explained(action, "sqlite")).toContain(
          `Note.allow${action[0]?.toUpperCase()}${action.slice(1)}`,
        );
      }
      const anonymous = await studio.get("/studio/policies/Note");
      expect(anonymous.html).toContain("no row (the caller&#39;s auth rules every row out)");
      const unguarded = await studio.get("/studio/policies/User");
      expect(unguarded.html).toContain(
        "User.allowInsert: no rule (denied to all but the admin token)",
      );
    });

    it.each([
      ["not JSON", "{nope", "INVALID_JSON"],
      ["an unknown field", '{"nope":1}', "INVALID_FORM"],
      ["a wrong type", '{"userId":5}', "INVALID_FORM"],
      ["markup", XSS, "INVALID_JSON"],
    ])(
      "answers a caller that is %s with 400 and the error on the page",
      async (_label, caller, code) => {
        const page = await studio.get(`/studio/policies/Note?caller=${encodeURIComponent(caller)}`);
        expect(page.status).toBe(400);
        expect(alertOf(page)?.code).toBe(code);
        if (caller === XSS) expectEscaped(page);
      },
    );
  });

  describe("accounts", () => {
    beforeEach(async () => {
      await studio.signIn();
    });

    it("lists users, sessions, API keys and audit events as metadata, never a token, key or hash", async () => {
      const ada = await registerPassword(server, "ada@example.com");
      const created = await readJSON<{ key: string; id: string; prefix: string }>(
        post(server, "/api/auth/api-keys", { name: "ci key" }, { token: ada.token }),
      );
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const { key } = created.body;
      const secret = key.split(".")[2] ?? "";
      expect(secret.length).toBeGreaterThan(20);
      const secrets = [
        ada.token,
        ada.token.replace(/^svc_/, ""),
        key,
        secret,
        ADMIN_TOKEN,
        "correct horse battery",
      ];

      const users = await studio.get("/studio/users");
      expect(users.status).toBe(200);
      expect(users.html).toContain("ada@example.com");
      expect(users.html).toContain(`data-id="${ada.user_id}"`);

      const sessions = await studio.get(`/studio/sessions?user=${ada.user_id}`);
      expect(sessions.status).toBe(200);
      expect(sessions.html).toContain(`/studio/users?id=${ada.user_id}`);

      const keys = await studio.get("/studio/api-keys");
      expect(keys.status).toBe(200);
      expect(keys.html).toContain(created.body.id);
      expect(keys.html).toContain("ci key");
      expect(keys.html).toContain(`<code>${created.body.prefix}</code>`);

      const audit = await studio.get(`/studio/audit?user=${ada.user_id}`);
      expect(audit.status).toBe(200);
      expect(audit.html).toContain(ada.user_id);

      const jobs = await studio.get("/studio/jobs");
      for (const page of [users, sessions, keys, audit, jobs]) {
        for (const value of secrets) expect(page.html).not.toContain(value);
        expect(page.html).not.toMatch(/secret_hash|password_hash|\$argon2|\$scrypt/);
      }
      // Other users' rows are not in a filtered list.
      const none = await studio.get("/studio/sessions?user=nobody");
      expect(none.html).toContain("None.");
      expect(none.html).not.toContain(ada.user_id);
    });

    it("shows an audit event's kind and a bad cursor as a 400 page", async () => {
      const ada = await registerPassword(server, "ada@example.com");
      const all = await studio.get(`/studio/audit?user=${ada.user_id}`);
      const kinds = [...all.html.matchAll(/<td data-field="kind"[^>]*>([^<]*)<\/td>/g)].map(
        (match) => match[1],
      );
      expect(kinds.length).toBeGreaterThan(0);
      const kind = kinds[0] ?? "";
      const filtered = await studio.get(
        `/studio/audit?kind=${encodeURIComponent(kind)}&user=${ada.user_id}`,
      );
      expect(filtered.status).toBe(200);
      expect(filtered.html).toContain(`>${kind}</td>`);
      for (const path of [
        "/studio/sessions?cursor=nope",
        "/studio/api-keys?cursor=nope",
        "/studio/audit?cursor=nope",
        "/studio/users?cursor=nope",
      ]) {
        const page = await studio.get(path);
        expect(page.status, path).toBe(400);
        expect(alertOf(page), path).toBeDefined();
      }
    });

    it("escapes a user's fields (XSS)", async () => {
      await server.store.transaction(adminAuth, (tx) =>
        tx.insert("User", { email: "x@example.com", name: XSS }),
      );
      expectEscaped(await studio.get("/studio/users"));
      expectEscaped(await studio.get(`/studio/sessions?user=${encodeURIComponent(XSS)}`));
    });
  });

  describe("jobs", () => {
    beforeEach(async () => {
      await studio.signIn();
    });

    interface JobBody {
      readonly id: string;
      readonly status: string;
      readonly attempts: number;
    }

    async function job(id: string): Promise<JobBody> {
      const answer = await readJSON<JobBody>(adminRequest(server, "GET", `/api/admin/jobs/${id}`));
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body;
    }

    async function scheduled(name: string, args: unknown): Promise<string> {
      const ran = await studio.post("/studio/functions", { name, args: JSON.stringify(args) });
      expect(ran.status, ran.html).toBe(200);
      const result = /<pre class="result">([\s\S]*?)<\/pre>/.exec(ran.html)?.[1] ?? "";
      return (JSON.parse(textOf(result)) as { jobId: string }).jobId;
    }

    it("explains jobs and links the docs when there are none", async () => {
      const empty = await studio.get("/studio/jobs");
      expect(empty.status).toBe(200);
      expect(empty.html).toContain("No jobs yet");
      expect(empty.html).toContain("ctx.scheduler.runAfter");
      expect(empty.html).toContain('<a href="/docs/functions/jobs">');
      expect((await fetch(`${server.url}/docs/functions/jobs`)).status).toBe(200);
      await scheduled("scheduleLater", {});
      const dead = await studio.get("/studio/jobs?status=dead");
      expect(dead.html).not.toContain("No jobs yet");
      expect(dead.html).toContain("No dead jobs.");
      expect(dead.html).toContain('<option value="pending" >pending (1)</option>');
      expect((await studio.get("/studio/jobs")).html).toContain('<span class="total">1 job</span>');
    });

    it("lists jobs by status, retries a dead one and cancels a pending one", async () => {
      const deadId = await scheduled("scheduleRefused", { why: XSS });
      await expect.poll(async () => (await job(deadId)).status, { timeout: 10_000 }).toBe("dead");
      server.clock.advance(1000);
      const laterId = await scheduled("scheduleLater", {});

      const all = await studio.get("/studio/jobs");
      expect(all.status).toBe(200);
      expectEscaped(all);
      const statusOf = (page: StudioPage, id: string): string | undefined =>
        rowsOf(page).find((row) => row.id === id)?.cells.status;
      expect(statusOf(all, deadId)).toBe("dead");
      expect(statusOf(all, laterId)).toBe("pending");
      const dead = await studio.get("/studio/jobs?status=dead");
      expect(rowsOf(dead).map((row) => row.id)).toEqual([deadId]);
      const bad = await studio.get("/studio/jobs?status=nope");
      expect(bad.status).toBe(400);
      expect(alertOf(bad)?.code).toBe("INVALID_QUERY");

      const retried = await studio.post(`/studio/jobs/${deadId}/retry`);
      expect(retried.status).toBe(303);
      expect((await studio.get(retried.location ?? "")).html).toContain("The job is pending again");
      // It ran again (and was refused again): one fresh attempt.
      await expect
        .poll(async () => job(deadId), { timeout: 10_000 })
        .toMatchObject({ status: "dead", attempts: 1 });

      const cancelled = await studio.post(`/studio/jobs/${laterId}/cancel`);
      expect(cancelled.status).toBe(303);
      expect((await job(laterId)).status).toBe("cancelled");
      const twice = await studio.post(`/studio/jobs/${laterId}/cancel`);
      expect(twice.status).toBe(409);
      expect(alertOf(twice)?.code).toBe("JOB_NOT_CANCELLABLE");
      const notRetryable = await studio.post(`/studio/jobs/${laterId}/retry`);
      expect(notRetryable.status).toBe(409);
      expect(alertOf(notRetryable)?.code).toBe("JOB_NOT_RETRYABLE");
      const missing = await studio.post(`/studio/jobs/${"0".repeat(32)}/retry`);
      expect(missing.status).toBe(404);
      expect(alertOf(missing)?.code).toBe("JOB_NOT_FOUND");
      // The admin API agrees with the page.
      expect(
        await errorOf(adminRequest(server, "POST", `/api/admin/jobs/${laterId}/cancel`)),
      ).toMatchObject({
        status: 409,
        code: "JOB_NOT_CANCELLABLE",
      });
    });
  });
});
