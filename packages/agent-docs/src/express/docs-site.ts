import { type RequestHandler, Router } from "express";
import { Marked } from "marked";
import type { DocsLibrary } from "../load-docs.js";
import { sendDocument } from "./send-document.js";

const HTML_TYPE = "text/html; charset=utf-8";
// The pages are svc's own, shipped in this package, so their HTML is
// trusted; the policy still forbids scripts and remote content outright.
const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'";

const STYLE =
  "body{font:16px/1.55 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}" +
  "pre{background:#f4f4f4;padding:.75rem;overflow:auto}code{font-size:.92em}" +
  "table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.25rem .5rem}nav{margin-bottom:1.5rem}";

function escapeHTML(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A page's links point at `../section/page.md`; the site serves them without `.md`. */
const markdown = new Marked({
  gfm: true,
  walkTokens(token) {
    if (token.type === "link" && /^\.\.?\/.*\.md(#.*)?$/.test(token.href)) {
      token.href = token.href.replace(/\.md(#.*)?$/, "$1");
    }
  },
});

function page(title: string, body: string, home: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHTML(title)} · svc docs</title><style>${STYLE}</style></head>
<body><nav><a href="${home}">svc documentation</a></nav><main>
${body}
</main></body></html>
`;
}

function sendHTML(
  req: Parameters<RequestHandler>[0],
  res: Parameters<RequestHandler>[1],
  html: string,
): void {
  res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  sendDocument(req, res, html, HTML_TYPE);
}

/**
 * The human documentation site the page entries' `url` points at:
 * `GET /docs` (every page by section) and `GET /docs/<section>/<page>` (one
 * page rendered from its markdown). Cached like the agent API's documents;
 * anything else under `/docs` is a 404 page.
 *
 * @example
 * app.use(docsSiteRouter({ library: await loadDocs() }));
 */
export function docsSiteRouter(options: { library: DocsLibrary }): Router {
  const { library } = options;
  const rendered = new Map<string, string>();
  const router = Router();

  router.get("/docs", (req, res) => {
    const sections = new Map<string, string[]>();
    // Only paths, titles and summaries are used here, so any base will do.
    for (const entry of library.list("http://localhost")) {
      const [section = ""] = entry.path.split("/");
      const items = sections.get(section) ?? [];
      const summary = entry.summary === undefined ? "" : ` — ${escapeHTML(entry.summary)}`;
      items.push(`<li><a href="/docs/${entry.path}">${escapeHTML(entry.title)}</a>${summary}</li>`);
      sections.set(section, items);
    }
    const body = [...sections]
      .map(([section, items]) => `<h2>${escapeHTML(section)}</h2><ul>${items.join("")}</ul>`)
      .join("\n");
    sendHTML(req, res, page("svc documentation", `<h1>svc documentation</h1>\n${body}`, "/docs"));
  });

  router.get("/docs/:section/:page", (req, res) => {
    const path = `${req.params.section}/${req.params.page}`;
    const doc = library.page(path);
    if (doc === undefined) {
      res.status(404).setHeader("Content-Type", HTML_TYPE);
      res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
      res.send(page("Not found", "<h1>No such page</h1>", "/docs"));
      return;
    }
    let html = rendered.get(path);
    if (html === undefined) {
      html = page(doc.title, markdown.parse(doc.markdown, { async: false }), "/docs");
      rendered.set(path, html);
    }
    sendHTML(req, res, html);
  });

  return router;
}
