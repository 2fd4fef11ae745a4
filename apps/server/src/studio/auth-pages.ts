import { type AuditEvent, auditKinds } from "@svc/auth-core";
import { findEntity } from "@svc/schema";
import { adminAuth, type Row } from "@svc/store";
import type { Request, RequestHandler, Response, Router } from "express";
import { auditDataCell, isStudioEvent } from "./audit-views.js";
import {
  type ApiKeyMetadata,
  countAuthRows,
  listApiKeyMetadata,
  listSessionMetadata,
  type SessionMetadata,
} from "./auth-metadata.js";
import { badge, cellValue, countText, idText, joined, jsonCell, timeCell } from "./cells.js";
import { renderTable, toolbar } from "./data-table.js";
import { COUNT_CAP, defaultOrder, entityColumns, type RowOrder } from "./entity-views.js";
import { type HTMLValue, html, type SafeHTML } from "./html.js";
import { errorBox, pagerLinks, type StudioSection, studioURL } from "./layout.js";
import { StudioError } from "./studio-errors.js";
import { cursorParam, queryParam, sendStudioPage } from "./studio-http.js";
import { type StudioOptions, shownErrorOf } from "./studio-options.js";

const USERS_PAGE_SIZE = 50;

/** A user id, shortened, linked to the user's page (`/studio/users?id=`). */
export function userLink(userId: string | null): SafeHTML {
  if (userId === null) return html`<span class="null">null</span>`;
  return idText(userId, studioURL(["users"], { id: userId }));
}

function userFilterForm(
  segments: readonly string[],
  userId: string | undefined,
  extra?: SafeHTML,
): SafeHTML {
  return html`<form class="filter" method="get" action="${studioURL(segments)}">
    <label>User id <input type="text" name="user" value="${userId ?? ""}" maxlength="200"></label>
    ${extra}
    <button type="submit">Filter</button>
  </form>`;
}

/** Renders a list page, or the same page with the client-safe error a read raised. */
async function sendListPage(
  res: Response,
  page: { readonly title: string; readonly section: StudioSection },
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
  sendStudioPage(res, { ...page, body }, status);
}

/** The order of a page of User rows, from `sort` and `dir` (default: newest first when it can). */
function usersOrder(req: Request, fallback: RowOrder): RowOrder {
  const field = queryParam(req, "sort", 128);
  const direction = queryParam(req, "dir", 8);
  if (direction !== undefined && direction !== "asc" && direction !== "desc") {
    throw new StudioError("INVALID_FORM", "The parameter dir must be asc or desc.");
  }
  if (field === undefined) return direction === undefined ? fallback : { ...fallback, direction };
  return { field, direction: direction ?? "asc" };
}

/**
 * The account pages, all read-only and metadata only: users (the `User`
 * entity's rows), sessions and API keys (never a token, key or hash) and the
 * audit log (auth-core's `listAudit` with the admin's rights), each paged
 * newest first, counted, and filterable by user.
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
    const id = queryParam(req, "id", 200);
    const cursor = cursorParam(req);
    await sendListPage(res, { title: "Users", section: "Users" }, async () => {
      if (userEntity === undefined) {
        return html`<p class="hint">The manifest declares no <code>User</code> entity; sessions and audit events still name user ids.</p>`;
      }
      const order = usersOrder(req, defaultOrder(userEntity));
      const where = id === undefined ? undefined : { id };
      const [page, total] = await Promise.all([
        store.reader(adminAuth).query("User", {
          limit: USERS_PAGE_SIZE,
          orderBy: order,
          ...(where !== undefined && { where }),
          ...(cursor !== undefined && { cursor }),
        }),
        store.count(adminAuth, "User", { max: COUNT_CAP, ...(where !== undefined && { where }) }),
      ]);
      const links = (row: Row): SafeHTML =>
        joined([
          html`<a href="${studioURL(["entities", "User", "rows", row.id])}">Edit</a>`,
          html`<a href="${studioURL(["sessions"], { user: row.id })}">Sessions</a>`,
          html`<a href="${studioURL(["api-keys"], { user: row.id })}">API keys</a>`,
          html`<a href="${studioURL(["audit"], { user: row.id })}">Audit</a>`,
        ]);
      const table = renderTable({
        columns: entityColumns(store.manifest, userEntity, [
          { key: "actions", label: "", className: "actions", cell: links },
        ]),
        rows: page.rows,
        rowId: (row) => row.id,
        sort: {
          ...order,
          href: (field, direction) => studioURL(["users"], { id, sort: field, dir: direction }),
        },
        className: "rows",
        attributes: html` data-row-url="${studioURL(["entities", "User", "rows", "__id__"])}"`,
        empty: html`<p class="hint">None.</p>`,
      });
      return html`<form class="filter" method="get" action="${studioURL(["users"])}">
          <label>User id <input type="text" name="id" value="${id ?? ""}" maxlength="200"></label>
          <button type="submit">Find</button>
        </form>
        ${toolbar({ total: countText(total, COUNT_CAP, "user") })}
        ${table}
        ${pagerLinks({
          segments: ["users"],
          params: { id, sort: order.field, dir: order.direction },
          cursor,
          nextCursor: page.nextCursor,
        })}`;
    });
  });

  router.get("/studio/sessions", ...signedIn, async (req, res) => {
    const userId = queryParam(req, "user", 200);
    const cursor = cursorParam(req);
    await sendListPage(res, { title: "Sessions", section: "Sessions" }, async () => {
      const [page, total] = await Promise.all([
        listSessionMetadata(auth.database, { userId, cursor }),
        countAuthRows(auth.database, { table: "svc_sessions", userId }),
      ]);
      const current = now();
      const table = renderTable<SessionMetadata>({
        columns: [
          { key: "id", label: "id", className: "nowrap", cell: (session) => idText(session.id) },
          { key: "user", label: "user", className: "nowrap", cell: (s) => userLink(s.userId) },
          { key: "kind", label: "kind", cell: (session) => badge(session.kind, "kind") },
          {
            key: "created",
            label: "created",
            className: "nowrap",
            cell: (s) => timeCell(s.createdAt),
          },
          {
            key: "expires",
            label: "expires",
            className: "nowrap",
            cell: (session) =>
              html`${timeCell(session.expiresAt)}${session.expiresAt <= current && html` <em>(expired)</em>`}`,
          },
          { key: "userAgent", label: "user agent", cell: (s) => cellValue(s.userAgent) },
          { key: "ip", label: "ip", className: "nowrap", cell: (s) => cellValue(s.ip) },
        ],
        rows: page.items,
        empty: html`<p class="hint">None.</p>`,
      });
      return html`<p class="muted">Metadata only: a session's id is the digest of its token, never the token. Newest first.</p>
        ${userFilterForm(["sessions"], userId)}
        ${toolbar({ total: countText(total.count, total.cap, "session") })}
        ${table}
        ${pagerLinks({ segments: ["sessions"], params: { user: userId }, cursor, nextCursor: page.nextCursor })}`;
    });
  });

  router.get("/studio/api-keys", ...signedIn, async (req, res) => {
    const userId = queryParam(req, "user", 200);
    const cursor = cursorParam(req);
    const seconds = (value: number | null): SafeHTML =>
      timeCell(value === null ? null : value * 1000);
    await sendListPage(res, { title: "API keys", section: "API keys" }, async () => {
      const [page, total] = await Promise.all([
        listApiKeyMetadata(auth.database, { userId, cursor }),
        countAuthRows(auth.database, { table: "svc_api_keys", userId }),
      ]);
      const table = renderTable<ApiKeyMetadata>({
        columns: [
          { key: "id", label: "id", className: "nowrap", cell: (key) => idText(key.id) },
          { key: "user", label: "user", className: "nowrap", cell: (key) => userLink(key.userId) },
          { key: "name", label: "name", cell: (key) => key.name },
          {
            key: "prefix",
            label: "prefix",
            className: "nowrap",
            cell: (key) => html`<code>${key.prefix}</code>…`,
          },
          { key: "scopes", label: "scopes", cell: (key) => cellValue(key.scopes) },
          {
            key: "created",
            label: "created",
            className: "nowrap",
            cell: (k) => seconds(k.createdAt),
          },
          {
            key: "expires",
            label: "expires",
            className: "nowrap",
            cell: (k) => seconds(k.expiresAt),
          },
          {
            key: "lastUsed",
            label: "last used",
            className: "nowrap",
            cell: (key) => seconds(key.lastUsedAt),
          },
        ],
        rows: page.items,
        empty: html`<p class="hint">None.</p>`,
      });
      return html`<p class="muted">Metadata only: the key itself is shown once, to its creator, and only its hash is kept. Newest first.</p>
        ${userFilterForm(["api-keys"], userId)}
        ${toolbar({ total: countText(total.count, total.cap, "API key") })}
        ${table}
        ${pagerLinks({ segments: ["api-keys"], params: { user: userId }, cursor, nextCursor: page.nextCursor })}`;
    });
  });

  router.get("/studio/audit", ...signedIn, async (req, res) => {
    const userId = queryParam(req, "user", 200);
    const kind = queryParam(req, "kind", 64);
    const cursor = cursorParam(req);
    await sendListPage(res, { title: "Audit events", section: "Audit" }, async () => {
      const [page, total] = await Promise.all([
        auth.listAudit(adminAuth, {
          ...(userId !== undefined && { user_id: userId }),
          ...(kind !== undefined && { kind }),
          ...(cursor !== undefined && { cursor }),
        }),
        countAuthRows(auth.database, { table: "svc_audit", userId, kind }),
      ]);
      const table = renderTable<AuditEvent>({
        columns: [
          {
            key: "at",
            label: "at",
            className: "nowrap",
            cell: (event) => timeCell(Date.parse(event.at)),
          },
          { key: "kind", label: "kind", className: "nowrap", cell: (event) => event.kind },
          {
            key: "user",
            label: "user",
            className: "nowrap",
            cell: (event) =>
              event.user_id === null && isStudioEvent(event)
                ? html`<span class="badge" title="The admin studio">studio</span>`
                : userLink(event.user_id),
          },
          { key: "ip", label: "ip", className: "nowrap", cell: (event) => cellValue(event.ip) },
          {
            key: "data",
            label: "data",
            cell: (event) => auditDataCell(event) ?? jsonCell(event.data),
          },
        ],
        rows: page.events,
        empty: html`<p class="hint">None.</p>`,
      });
      const kinds = [...auditKinds].sort();
      return html`${userFilterForm(
        ["audit"],
        userId,
        html`<label>Kind <select name="kind">
          <option value="">(all)</option>
          ${kinds.map((name) => html`<option value="${name}" ${name === kind && "selected"}>${name}</option>`)}
          ${kind !== undefined && !kinds.includes(kind as (typeof kinds)[number]) && html`<option value="${kind}" selected>${kind}</option>`}
        </select></label>`,
      )}
        ${toolbar({ total: countText(total.count, total.cap, "event") })}
        ${table}
        ${pagerLinks({ segments: ["audit"], params: { user: userId, kind }, cursor, nextCursor: page.next_cursor })}`;
    });
  });
}
