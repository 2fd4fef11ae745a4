import type {
  LiveCallers,
  LiveConnectionInfo,
  LiveSubscriptionInfo,
  LiveTransport,
} from "@svc/sync";
import type { RequestHandler, Router } from "express";
import { userLink } from "./auth-pages.js";
import { badge, cellValue, countText, jsonCell, timeCell } from "./cells.js";
import { renderTable, toolbar } from "./data-table.js";
import { html, type SafeHTML } from "./html.js";
import { csrfField, noticeBox, studioURL } from "./layout.js";
import { studioEvent } from "./studio-audit.js";
import { StudioError } from "./studio-errors.js";
import { checkCsrfToken, queryParam, sendStudioPage, sessionOf } from "./studio-http.js";
import type { StudioOptions } from "./studio-options.js";

/** Connections one page shows at most (narrow with the filters). */
const MAX_SHOWN = 200;
const TRANSPORTS: readonly LiveTransport[] = ["websocket", "sse", "room"];
const TRANSPORT_LABELS: Readonly<Record<LiveTransport, string>> = {
  websocket: "WebSocket",
  sse: "SSE",
  room: "room",
};
/** What `LiveCallers.list` names a connection with: 24 hex characters. */
const CONNECTION_ID = /^[0-9a-f]{24}$/;

/** How the caller proved who it is, in words. */
function callerText(connection: LiveConnectionInfo): SafeHTML {
  if (connection.isAdmin) return html`<span class="badge">admin token</span>`;
  const kind = connection.isGuest ? "guest" : (connection.via ?? "unknown");
  return html`${userLink(connection.userId)} <small>${kind}</small>`;
}

function subscriptionText(subscription: LiveSubscriptionInfo): SafeHTML {
  if ("query" in subscription) {
    return html`<div><code>${subscription.id}</code>: query <code>${subscription.query}</code></div>`;
  }
  return html`<div><code>${subscription.id}</code>: <strong>${subscription.entity}</strong>${subscription.where !== undefined && html` where ${jsonCell(subscription.where)}`}</div>`;
}

function age(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

const NOTICES: ReadonlyMap<string, string> = new Map([
  [
    "closed",
    "The connection is closed. Its client may reconnect; to keep a user out, revoke their session or key.",
  ],
]);

/**
 * The Live page: the open WebSocket, SSE and room connections of this
 * server with their caller (user and how it signed in, never a token),
 * address, age and subscriptions, the rooms with their members here, and
 * a Close button per connection (a CSRF-checked POST, audited as
 * `StudioLiveClose`).
 */
export function registerLivePages(
  router: Router,
  options: StudioOptions,
  signedIn: readonly RequestHandler[],
): void {
  const live: Pick<LiveCallers, "list" | "disconnect"> | undefined = options.live;
  const now = options.now ?? Date.now;

  router.get("/studio/live", ...signedIn, (req, res) => {
    const transportText = queryParam(req, "transport", 16);
    if (transportText !== undefined && !(TRANSPORTS as readonly string[]).includes(transportText)) {
      throw new StudioError(
        "INVALID_FORM",
        `The parameter transport must be one of ${TRANSPORTS.join(", ")}.`,
      );
    }
    const transport = transportText as LiveTransport | undefined;
    const userId = queryParam(req, "user", 200);
    const done = queryParam(req, "done", 16);
    const csrfToken = sessionOf(res).csrfToken;
    if (live === undefined) {
      sendStudioPage(res, {
        title: "Live",
        section: "Live",
        body: html`<p class="hint">This server serves no live connections to the studio.</p>`,
      });
      return;
    }
    const all = live.list();
    const matching = all
      .filter((connection) => transport === undefined || connection.transport === transport)
      .filter((connection) => userId === undefined || connection.userId === userId)
      .reverse();
    const shown = matching.slice(0, MAX_SHOWN);
    const current = now();
    const rooms = new Map<
      string,
      { name: string; key: string | null; members: LiveConnectionInfo[] }
    >();
    for (const connection of all) {
      if (connection.room === undefined) continue;
      const id = `${connection.room.name}\u0000${connection.room.key ?? ""}`;
      const room = rooms.get(id) ?? { ...connection.room, members: [] };
      room.members.push(connection);
      rooms.set(id, room);
    }
    const closeButton = (connection: LiveConnectionInfo): SafeHTML =>
      html`<form class="inline" method="post" action="${studioURL(["live", connection.id, "close"])}" data-confirm="Close this connection?">${csrfField(csrfToken)}<button type="submit" class="danger">Close</button></form>`;
    const connections = renderTable<LiveConnectionInfo>({
      columns: [
        {
          key: "id",
          label: "connection",
          className: "nowrap",
          cell: (c) => html`<code title="${c.id}">${c.id.slice(0, 8)}…</code>`,
        },
        {
          key: "transport",
          label: "transport",
          cell: (c) =>
            badge(
              c.transport === undefined ? "?" : TRANSPORT_LABELS[c.transport],
              c.transport ?? "unknown",
            ),
        },
        { key: "caller", label: "caller", className: "nowrap", cell: callerText },
        ...(shown.some((connection) => connection.tenantId !== null)
          ? [
              {
                key: "tenant",
                label: "organization",
                cell: (c: LiveConnectionInfo) => cellValue(c.tenantId),
              },
            ]
          : []),
        {
          key: "opened",
          label: "open since",
          className: "nowrap",
          cell: (c) => html`${timeCell(c.openedAt)} <small>${age(current - c.openedAt)}</small>`,
        },
        {
          key: "address",
          label: "address",
          className: "nowrap",
          cell: (c) => cellValue(c.address ?? null),
        },
        { key: "userAgent", label: "user agent", cell: (c) => cellValue(c.userAgent ?? null) },
        {
          key: "subscriptions",
          label: "subscriptions",
          className: "wide",
          cell: (c) =>
            c.room !== undefined
              ? html`room <strong>${c.room.name}</strong>${c.room.key !== null && html` / <code>${c.room.key}</code>`}`
              : c.subscriptions.length === 0
                ? html`<span class="null">none</span>`
                : html`${c.subscriptions.map(subscriptionText)}`,
        },
        { key: "actions", label: "", className: "actions", cell: closeButton },
      ],
      rows: shown,
      rowId: (connection) => connection.id,
      empty: html`<p class="hint">No open live connection${transport !== undefined || userId !== undefined ? " matches the filter" : " on this server"}. Clients subscribe over WebSocket (<code>/ws</code>), Server-Sent Events (<code>/events</code>) or join rooms (<code>/shard/&lt;room&gt;/&lt;key&gt;</code>).</p>`,
    });
    const roomTable = renderTable<{
      name: string;
      key: string | null;
      members: LiveConnectionInfo[];
    }>({
      columns: [
        { key: "room", label: "room", cell: (room) => html`<strong>${room.name}</strong>` },
        {
          key: "key",
          label: "key",
          cell: (room) =>
            room.key === null
              ? html`<span class="null">none</span>`
              : html`<code>${room.key}</code>`,
        },
        {
          key: "members",
          label: "members here",
          className: "num",
          cell: (room) => String(room.members.length),
        },
        {
          key: "users",
          label: "who",
          cell: (room) =>
            html`${room.members.map((member, index) => html`${index > 0 && ", "}${member.isAdmin ? "admin token" : userLink(member.userId)}`)}`,
        },
      ],
      rows: [...rooms.values()].sort(
        (a, b) => a.name.localeCompare(b.name) || (a.key ?? "").localeCompare(b.key ?? ""),
      ),
      empty: html`<p class="muted">No room has members on this server.</p>`,
    });
    const filter = html`<form class="filter" method="get" action="${studioURL(["live"])}">
      <label>Transport <select name="transport">
        <option value="">(any)</option>
        ${TRANSPORTS.map((value) => html`<option value="${value}" ${value === transport && "selected"}>${TRANSPORT_LABELS[value]}</option>`)}
      </select></label>
      <label>User id <input type="text" name="user" value="${userId ?? ""}" maxlength="200"></label>
      <button type="submit">Filter</button>
    </form>`;
    sendStudioPage(res, {
      title: "Live",
      section: "Live",
      body: html`${done !== undefined && NOTICES.has(done) && noticeBox(NOTICES.get(done) ?? "")}
        <p class="muted">The open live connections of this server (each server lists its own), newest first, with the caller as it was resolved: never a token, cookie or key.</p>
        ${filter}
        ${toolbar({
          total: `${countText(matching.length, Number.POSITIVE_INFINITY, "connection")}${matching.length > MAX_SHOWN ? ` (the newest ${MAX_SHOWN} shown)` : ""}`,
          actions: html`<a class="button" href="${studioURL(["live"], { transport, user: userId })}">Refresh</a>`,
        })}
        ${connections}
        <h2>Rooms</h2>
        ${roomTable}`,
    });
  });

  router.post("/studio/live/:id/close", ...signedIn, async (req, res) => {
    checkCsrfToken(req, res);
    const id = String(req.params.id);
    const connection = CONNECTION_ID.test(id)
      ? live?.list().find((candidate) => candidate.id === id)
      : undefined;
    if (live === undefined || connection === undefined || !live.disconnect(id)) {
      throw new StudioError(
        "NOT_FOUND",
        "No open connection with that id: it may have closed already.",
      );
    }
    await options.auth.recordOperatorAudit(
      studioEvent(req, res, "StudioLiveClose", {
        connection_id: id,
        transport: connection.transport ?? null,
        user_id: connection.userId,
        ...(connection.room !== undefined && { room: connection.room.name }),
      }),
    );
    res.redirect(303, studioURL(["live"], { done: "closed" }));
  });
}
