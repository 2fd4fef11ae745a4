import type { RequestHandler } from "express";
import type { RouteContext } from "../request-context.js";
import { MARKDOWN_TYPE, sendDocument } from "../send-document.js";

/** `GET /agent/v1/skill`: the authoring guide as markdown. */
export function getSkillRoute(context: RouteContext): RequestHandler {
  return (req, res) => {
    sendDocument(req, res, context.library.skill(), MARKDOWN_TYPE);
  };
}
