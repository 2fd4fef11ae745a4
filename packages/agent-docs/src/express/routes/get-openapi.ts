import type { RequestHandler } from "express";
import type { RouteContext } from "../request-context.js";
import { sendJSONDocument } from "../send-document.js";

/** `GET /agent/v1/openapi.json`: the OpenAPI document, listing this request's base as its server. */
export function getOpenAPIRoute(context: RouteContext): RequestHandler {
  const { openapi, info, ...rest } = context.openapi;
  return (req, res) => {
    sendJSONDocument(req, res, {
      openapi,
      info,
      servers: [{ url: context.baseURL(req) }],
      ...rest,
    });
  };
}
