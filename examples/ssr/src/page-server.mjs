// A page rendered on the server with @svc/client/server, in plain Node:
// the visitor's todos are in the HTML the browser first receives, and a
// small module script (the @svc/client build, served as-is, no bundler)
// picks up from the embedded state and keeps the list live.

import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { dirname, join, normalize, sep } from "node:path";
import { createServerClient, serializeState } from "@svc/client/server";

const TODOS = /** @type {const} */ ({ orderBy: "title" });
const VENDOR = "/vendor/svc-client/";

/** The directory of @svc/client's build, served to browsers under `/vendor/svc-client/`. */
function clientBuildDir() {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@svc/client/package.json")), "dist");
}

/** @param {string} text */
function escapeHTML(text) {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * @param {{ title: string, rows: readonly { id: string, title?: unknown }[], signedIn: boolean, state: string, svcURL: string }} page
 */
function renderPage(page) {
  const items = page.rows
    .map((row) => `<li data-id="${escapeHTML(row.id)}">${escapeHTML(String(row.title ?? ""))}</li>`)
    .join("");
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHTML(page.title)}</title></head>
<body>
<h1>${escapeHTML(page.title)}</h1>
${page.signedIn ? "" : "<p>Sign in to see your todos.</p>"}
<ul id="todos">${items}</ul>
<script type="application/json" id="svc-state">${page.state}</script>
<script type="module">
import { createClient } from "${VENDOR}index.js";
const initialState = JSON.parse(document.getElementById("svc-state").textContent);
// The session cookie goes along (cookies ignore the port), so the socket is the visitor's.
const client = createClient({ url: ${JSON.stringify(page.svcURL)}, initialState, credentials: "include" });
const list = document.getElementById("todos");
client.subscribe("Todo", ${JSON.stringify(TODOS)}, (rows) => {
  list.replaceChildren(...rows.map((row) => {
    const item = document.createElement("li");
    item.dataset.id = row.id;
    item.textContent = String(row.title ?? "");
    return item;
  }));
});
</script>
</body>
</html>`;
}

/**
 * Serves `GET /` (the page) and `GET /vendor/svc-client/*` (the client build).
 *
 * @param {{ svcURL: string, publicSvcURL?: string }} options
 *   `svcURL`: where this server reaches svc; `publicSvcURL`: where browsers do (default the same).
 */
export function createPageServer(options) {
  const vendorDir = clientBuildDir();
  return createServer(async (req, res) => {
    try {
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      if (req.method === "GET" && path === "/") {
        // As the visitor: their svc_session cookie (or bearer) reaches svc.
        const svc = createServerClient({ url: options.svcURL, request: req });
        const signedIn = (await svc.token()) !== null;
        const rows = signedIn ? await svc.prefetchQuery("Todo", TODOS) : [];
        const html = renderPage({
          title: "Todos",
          rows: /** @type {{ id: string, title?: unknown }[]} */ (rows),
          signedIn,
          state: serializeState(svc.dehydrate()),
          svcURL: options.publicSvcURL ?? options.svcURL,
        });
        res.writeHead(200, {
          "Content-Type": "text/html; charset=utf-8",
          "Cache-Control": "no-store",
        });
        res.end(html);
        return;
      }
      if (req.method === "GET" && path.startsWith(VENDOR)) {
        const file = normalize(join(vendorDir, decodeURIComponent(path.slice(VENDOR.length))));
        // Only .js files inside the build directory: no traversal out of it.
        if (
          file.startsWith(vendorDir + sep) &&
          file.endsWith(".js") &&
          (await stat(file).catch(() => null))?.isFile()
        ) {
          res.writeHead(200, { "Content-Type": "text/javascript; charset=utf-8" });
          createReadStream(file).pipe(res);
          return;
        }
      }
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" });
      res.end("Not found");
    } catch (error) {
      console.error("ssr example:", error);
      if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain; charset=utf-8" });
      res.end("svc is unavailable");
    }
  });
}
