import { getCaller } from "@svc/schema/http";
import express, { type Request, type Router } from "express";
import type { Files } from "../create-files.js";
import { FilesError } from "../errors.js";

function declaredLength(req: Request): number | undefined {
  const header = req.headers["content-length"];
  if (header === undefined) return undefined;
  const value = Number(header);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/**
 * The file routes as one express router (absolute paths; `<prefix>` is the
 * files core's `urlPrefix`, default `/api/files`):
 *
 * - `POST /api/files` `{name?, size, contentType}` → `{id, upload:{url,
 *   method, headers}, expires_at}` (signed-in callers).
 * - `PUT <prefix>/upload/<id>?token=…` (local provider): the bytes, streamed
 *   to disk; the token is single-use.
 * - `POST /api/files/<id>/confirm` → the file, once the object has the declared size.
 * - `GET <prefix>/<id>` → the bytes (local) or 302 to a signed URL (s3).
 * - `GET <prefix>/<id>/info` → the file's metadata.
 * - `DELETE /api/files/<id>` → 204 (owner or admin).
 *
 * Mount it after auth-core's `authenticate`; errors go to the app's error
 * handler (`FilesError` is a wire error).
 *
 * @example
 * app.use(createFilesRouter(files));
 */
export function createFilesRouter(files: Files): Router {
  const router = express.Router({ caseSensitive: true });
  const prefix = files.urlPrefix;
  const json = express.json({ limit: 16 * 1024, type: () => true });

  router.post("/api/files", json, async (req, res) => {
    const result = await files.init(getCaller(req), req.body);
    res.status(201).json(result);
  });
  router.post("/api/files/:id/confirm", async (req, res) => {
    res.json(await files.confirm(getCaller(req), req.params.id as string));
  });
  router.delete("/api/files/:id", async (req, res) => {
    await files.delete(getCaller(req), req.params.id as string);
    res.status(204).end();
  });
  router.put(`${prefix}/upload/:id`, async (req, res) => {
    const length = declaredLength(req);
    if (length !== undefined && length > files.maxBytes) {
      res.set("Connection", "close");
      throw new FilesError("FILE_TOO_LARGE");
    }
    try {
      await files.receive(req.params.id as string, req.query.token, req, length);
    } catch (error) {
      // The client may still be sending: answer, then stop reading.
      res.set("Connection", "close");
      throw error;
    }
    res.status(204).end();
  });
  router.get(`${prefix}/:id/info`, async (req, res) => {
    res.set("Cache-Control", "no-store");
    res.json(await files.get(getCaller(req), req.params.id as string));
  });
  router.get(`${prefix}/:id`, async (req, res) => {
    const { file, body } = await files.read(getCaller(req), req.params.id as string);
    res.set("Cache-Control", "private, no-store");
    if (body === null) throw new FilesError("FILE_NOT_FOUND");
    if (body.kind === "redirect") {
      res.redirect(302, body.url);
      return;
    }
    res.set("Content-Type", file.content_type);
    res.set("Content-Length", String(body.size));
    res.set("X-Content-Type-Options", "nosniff");
    // Never rendered inline as a page of this origin (stored HTML, SVG).
    res.set("Content-Disposition", "attachment");
    body.stream.pipe(res);
  });
  return router;
}
