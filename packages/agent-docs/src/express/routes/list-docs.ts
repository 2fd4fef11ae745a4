import type { RequestHandler } from "express";
import type { DocsList } from "../../schemas.js";
import type { RouteContext } from "../request-context.js";
import { sendJSONDocument } from "../send-document.js";

/** `GET /agent/v1/docs`: every page entry. */
export function listDocsRoute(context: RouteContext): RequestHandler {
  return (req, res) => {
    const results = context.library.list(context.baseURL(req));
    const body: DocsList = { count: results.length, results };
    sendJSONDocument(req, res, body);
  };
}
