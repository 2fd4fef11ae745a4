import type { RequestHandler } from "express";
import { searchDocsOperation } from "../../operations.js";
import type { DocsSearchResult } from "../../schemas.js";
import { parseQuery, type RouteContext } from "../request-context.js";
import { sendJSONDocument } from "../send-document.js";

/** `GET /agent/v1/docs/search?q=&limit=`: matching page entries, best first. */
export function searchDocsRoute(context: RouteContext): RequestHandler {
  return (req, res) => {
    const { q, limit } = parseQuery(searchDocsOperation, req.query);
    const results = context.library.search(q, limit, context.baseURL(req));
    const body: DocsSearchResult = { query: q, count: results.length, results };
    sendJSONDocument(req, res, body);
  };
}
