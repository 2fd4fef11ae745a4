import type { RequestHandler } from "express";
import { listTemplatesOperation } from "../../operations.js";
import type { TemplateList } from "../../schemas.js";
import { listTemplates } from "../../templates.js";
import { parseQuery } from "../request-context.js";
import { sendJSONDocument } from "../send-document.js";

/** `GET /agent/v1/templates?q=`: the starter templates, filtered by `q`. */
export function listTemplatesRoute(): RequestHandler {
  return (req, res) => {
    const { q } = parseQuery(listTemplatesOperation, req.query);
    const templates = listTemplates(q);
    const body: TemplateList = { count: templates.length, templates };
    sendJSONDocument(req, res, body);
  };
}
