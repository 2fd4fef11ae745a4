import { statSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { extname, resolve, sep } from "node:path";
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from "express";

/**
 * First path segments the framework owns. A page never answers under them,
 * so `/api/nope` keeps its `ROUTE_NOT_FOUND` even from a browser, and a
 * route added later under one of them cannot be shadowed by a file.
 */
const FRAMEWORK_SEGMENTS = new Set([
  "api",
  "agent",
  "docs",
  "mcp",
  "ws",
  "events",
  "shard",
  "studio",
  "health",
  "readyz",
  "metrics",
]);

/** Content types of the files a built front end is made of; anything else is opaque bytes. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".wasm": "application/wasm",
  ".woff2": "font/woff2",
};

/**
 * The request path as safe segments below the public directory, decoded
 * exactly once; undefined for anything that could leave the directory or
 * reach a hidden file: bad percent-encoding, encoded slashes or
 * backslashes, NUL, empty segments (`//etc/passwd`), `.`/`..` and dotfiles.
 */
export function pagePathSegments(rawPath: string): string[] | undefined {
  if (!rawPath.startsWith("/") || /%2f|%5c/i.test(rawPath)) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0") || decoded.includes("\\")) return undefined;
  if (decoded === "/") return [];
  const segments = decoded.slice(1).split("/");
  // One trailing slash (`/todos/`) is a client route's spelling, not a segment.
  if (segments.at(-1) === "" && segments.length > 1) segments.pop();
  if (segments.some((segment) => segment === "" || segment.startsWith("."))) return undefined;
  return segments;
}

/** Whether the request names `text/html` among what it accepts (a browser navigating). */
function acceptsHTML(req: Request): boolean {
  const accept = req.headers.accept;
  if (accept === undefined) return false;
  return accept.split(",").some((part) => {
    const [type, ...params] = part.split(";").map((piece) => piece.trim().toLowerCase());
    return type === "text/html" && !params.some((param) => /^q=0(\.0*)?$/.test(param));
  });
}

function setPageHeaders(res: ServerResponse, path: string): void {
  res.setHeader(
    "Content-Type",
    CONTENT_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream",
  );
  res.setHeader("X-Content-Type-Options", "nosniff");
  // Every file is revalidated (a cheap 304 with ETag/Last-Modified): the
  // front end's bundle keeps its name (`app.js`) across builds, so a
  // heuristic cache would run yesterday's code against today's API.
  res.setHeader("Cache-Control", "no-cache");
}

/** Whether `dir` is a directory (the app ships a front end). */
export function hasPublicDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Serves an app's static front end from `dir` (the `public/` beside the
 * manifest), mounted after every framework route so those keep winning.
 * GET and HEAD only: `/` is `index.html`; an existing file is streamed
 * from disk (ETag, Last-Modified, 304, ranges, no directory listings); a
 * missing path without a file extension whose request accepts `text/html`
 * gets `index.html` too, for client-side routes. Everything else falls
 * through to the server's `ROUTE_NOT_FOUND`.
 */
export function appPages(dir: string): RequestHandler {
  const root = resolve(dir);
  const serveFile = express.static(root, {
    index: false,
    redirect: false,
    dotfiles: "deny",
    fallthrough: true,
    cacheControl: false,
    etag: true,
    lastModified: true,
    setHeaders: setPageHeaders,
  });

  // serve-static reads the path from `req.url`: point it at the checked,
  // re-encoded path (it decodes once more, giving back our segments), and
  // put the URL back as soon as it has read it. A missing file (or a
  // directory) calls `onMissing`; a failing disk goes to the error handler.
  function serve(
    req: Request,
    res: Response,
    next: NextFunction,
    segments: readonly string[],
    onMissing: () => void,
  ): void {
    // Belt and braces: the segments cannot climb, but the resolved path is what gets opened.
    if (!resolve(root, ...segments).startsWith(root + sep)) {
      onMissing();
      return;
    }
    const original = req.url;
    req.url = `/${segments.map(encodeURIComponent).join("/")}`;
    try {
      serveFile(req, res, (error?: unknown) => (error === undefined ? onMissing() : next(error)));
    } finally {
      req.url = original;
    }
  }

  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const segments = pagePathSegments(req.path);
    if (segments === undefined) return next();
    const first = segments[0];
    if (first !== undefined && FRAMEWORK_SEGMENTS.has(first.toLowerCase())) return next();
    const serveIndex = () => serve(req, res, next, ["index.html"], () => next());
    if (segments.length === 0) return serveIndex();
    serve(req, res, next, segments, () => {
      const last = segments.at(-1) ?? "";
      if (extname(last) !== "" || !acceptsHTML(req)) return next();
      // The same URL answers a script with 404 and a browser with the page.
      res.vary("Accept");
      serveIndex();
    });
  };
}
