import { findEntity } from "@svc/schema";
import { adminAuth } from "@svc/store";
import type { Request, RequestHandler, Response, Router } from "express";
import { listApiKeyMetadata, listSessionMetadata } from "./auth-metadata.js";
import { type HTMLValue, html, type SafeHTML } from "./html.js";
import { cellValue, errorBox, pagerLinks, renderPage, studioURL, timeText } from "./layout.js";
import { queryParam, sendPage, sessionOf } from "./studio-http.js";
import { type StudioOptions, shownErrorOf } from "./studio-options.js";

const USERS_PAGE_SIZE = 50;

function userLink(userId: string | null): SafeHTML {
  if (userId === null) return html`<span class="null">null</span>`;
  return html`<a href="${studioURL(["users"], { id: userId })}">${userId}</a>`;
}

function userFilterForm(
  segments: readonly string[],
  userId: string | undefined,
  extra?: SafeHTML,
): SafeHTML {
  return html`<form class="filter" method="get" action="${studioURL(segments)}">
    <label>User id <input type="text" name="user" value="${userId ?? ""}"></label>
    ${extra}
    <button type="submit">Filter</button>
  </form>`;
}

function table(headings: readonly string[], rows: readonly SafeHTML[]): SafeHTML {
  if (rows.length === 0) return html`<p>None.</p>`;
  return html`<table>
    <thead><tr>${headings.map((heading) => html`<th>${heading}</th>`)}</tr></thead>
    <tbody>${rows}</tbody>
  </table>`;
}

/** Renders a list page, or the same page with the client-safe error a read raised. */
async function sendListPage(
  res: Response,
  title: string,
  build: () => Promise<HTMLValue>,
): Promise<void> {
  let body: HTMLValue;
  let status = 200;
  try {
    body = await build();
  } catch (error) {
    const shown = shownErrorOf(error);
    if (shown === null) throw error;
    status = shown.status;
    body = errorBox(shown.error);
  }
  sendPage(res, status, renderPage({ title, csrfToken: sessionOf(res).csrfToken, body }));
}

/**
 * The account pages, all read-only and metadata only: users (the `User`
 * entity's rows), sessions and API keys (never a token, key or hash) and the
 * audit log (auth-core's `listAudit` with the admin's rights), each paged
 * and filterable by user.
 */
export function registerAuthPages(
  router: Router,
  options: StudioOptions,
  signedIn: readonly RequestHandler[],
): void {
  const { store, auth } = options;
  const now = options.now ?? Date.now;

  router.get("/studio/users", ...signedIn, async (req: Request, res: Response) => {
    const userEntity = findEntity(store.manifest, "User");
    const id = queryParam(req, "id");
    const cursor = queryParam(req, "cursor");
    await sendListPage(res, "Users", async () => {
      if (userEntity === undefined) {
        return html`<p>The manifest declares no <code>User</code> entity; sessions and audit events still name user ids.</p>`;
      }
      const fields = userEntity.fields.map((field) => field.name);
      const page = await store.reader(adminAuth).query("User", {
        limit: USERS_PAGE_SIZE,
        ...(id !== undefined && { where: { id } }),
        ...(cursor !== undefined && { cursor }),
      });
      const rows = page.rows.map(
        (row) => html`<tr data-id="${row.id}">
          <td>${row.id}</td>
          ${fields.map((field) => html`<td>${cellValue(row[field])}</td>`)}
          <td><a href="${studioURL(["entities", "User", "rows", row.id])}">Edit</a>
            · <a href="${studioURL(["sessions"], { user: row.id })}">Sessions</a>
            · <a href="${studioURL(["api-keys"], { user: row.id })}">API keys</a>
            · <a href="${studioURL(["audit"], { user: row.id })}">Audit</a></td>
        </tr>`,
      );
      return html`<form class="filter" method="get" action="${studioURL(["users"])}">
          <label>User id <input type="text" name="id" value="${id ?? ""}"></label>
          <button type="submit">Find</button>
        </form>
        ${table(["id", ...fields, ""], rows)}
        ${pagerLinks({ segments: ["users"], params: { id }, cursor, nextCursor: page.nextCursor })}`;
    });
  });

  router.get("/studio/sessions", ...signedIn, async (req, res) => {
    const userId = queryParam(req, "user");
    const cursor = queryParam(req, "cursor");
    await sendListPage(res, "Sessions", async () => {
      const page = await listSessionMetadata(auth.database, { userId, cursor });
      const current = now();
      const rows = page.items.map(
        (session) => html`<tr>
          <td><code>${session.id}</code></td>
          <td>${userLink(session.userId)}</td>
          <td>${session.kind}</td>
          <td>${timeText(session.createdAt)}</td>
          <td>${timeText(session.expiresAt)}${session.expiresAt <= current && html` <em>(expired)</em>`}</td>
          <td>${cellValue(session.userAgent)}</td>
          <td>${cellValue(session.ip)}</td>
        </tr>`,
      );
      return html`<p>Metadata only: a session's id is the digest of its token, never the token.</p>
        ${userFilterForm(["sessions"], userId)}
        ${table(["id", "user", "kind", "created", "expires", "user agent", "ip"], rows)}
        ${pagerLinks({ segments: ["sessions"], params: { user: userId }, cursor, nextCursor: page.nextCursor })}`;
    });
  });

  router.get("/studio/api-keys", ...signedIn, async (req, res) => {
    const userId = queryParam(req, "user");
    const cursor = queryParam(req, "cursor");
    const seconds = (value: number | null): string =>
      timeText(value === null ? null : value * 1000);
    await sendListPage(res, "API keys", async () => {
      const page = await listApiKeyMetadata(auth.database, { userId, cursor });
      const rows = page.items.map(
        (key) => html`<tr>
          <td><code>${key.id}</code></td>
          <td>${userLink(key.userId)}</td>
          <td>${key.name}</td>
          <td><code>${key.prefix}</code>…</td>
          <td>${cellValue(key.scopes)}</td>
          <td>${seconds(key.createdAt)}</td>
          <td>${seconds(key.expiresAt)}</td>
          <td>${seconds(key.lastUsedAt)}</td>
        </tr>`,
      );
      return html`<p>Metadata only: the key itself is shown once, to its creator, and only its hash is kept.</p>
        ${userFilterForm(["api-keys"], userId)}
        ${table(["id", "user", "name", "prefix", "scopes", "created", "expires", "last used"], rows)}
        ${pagerLinks({ segments: ["api-keys"], params: { user: userId }, cursor, nextCursor: page.nextCursor })}`;
    });
  });

  router.get("/studio/audit", ...signedIn, async (req, res) => {
    const userId = queryParam(req, "user");
    const kind = queryParam(req, "kind");
    const cursor = queryParam(req, "cursor");
    await sendListPage(res, "Audit events", async () => {
      const page = await auth.listAudit(adminAuth, {
        ...(userId !== undefined && { user_id: userId }),
        ...(kind !== undefined && { kind }),
        ...(cursor !== undefined && { cursor }),
      });
      const rows = page.events.map(
        (event) => html`<tr>
          <td>${event.at}</td>
          <td>${event.kind}</td>
          <td>${userLink(event.user_id)}</td>
          <td>${cellValue(event.ip)}</td>
          <td>${cellValue(event.data)}</td>
        </tr>`,
      );
      return html`${userFilterForm(
        ["audit"],
        userId,
        html`<label>Kind <input type="text" name="kind" value="${kind ?? ""}"></label>`,
      )}
        ${table(["at", "kind", "user", "ip", "data"], rows)}
        ${pagerLinks({ segments: ["audit"], params: { user: userId, kind }, cursor, nextCursor: page.next_cursor })}`;
    });
  });
}
