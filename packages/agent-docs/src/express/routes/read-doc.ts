import type { RequestHandler } from "express";
import { AgentDocsError, quoteForMessage } from "../../errors.js";
import { readDocOperation } from "../../operations.js";
import { parseQuery, type RouteContext } from "../request-context.js";
import { MARKDOWN_TYPE, sendDocument } from "../send-document.js";

/** `GET /agent/v1/docs/read?path=`: one listed page as markdown, 404 for anything else. */
export function readDocRoute(context: RouteContext): RequestHandler {
  return (req, res) => {
    const { path } = parseQuery(readDocOperation, req.query);
    const markdown = context.library.read(path);
    if (markdown === undefined) {
      throw new AgentDocsError("DOC_NOT_FOUND", {
        message: `No documentation page has the path ${quoteForMessage(path)}; list or search the docs for valid paths.`,
      });
    }
    sendDocument(req, res, markdown, MARKDOWN_TYPE);
  };
}
