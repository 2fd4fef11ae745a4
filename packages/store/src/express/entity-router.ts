import type { AuthContext } from "@svc/schema";
import { getCaller } from "@svc/schema/http";
import express, { type IRouter, type Request, type RequestHandler, type Router } from "express";
import { StoreError } from "../errors.js";
import {
  createIdempotency,
  type Idempotency,
  type IdempotentWrite,
  idempotentWriteOf,
} from "../idempotent-writes.js";
import { insertBatch, parseBatchBody, parseListQuery, parseRowFields } from "../rest-input.js";
import type { EntityWriter, Store } from "../types.js";
import { jsonBody } from "./json-body.js";
import { IDEMPOTENCY_HEADER, sendAnswer } from "./send-answer.js";

/** What `createEntityRouter` needs beside the store. */
export interface EntityRouterOptions {
  /**
   * The caller of a request. Default `getCaller` of @svc/schema/http: the
   * caller the app's gate recorded (@svc/auth-core's `authenticate`, or a
   * gate of the app's own that calls `setCaller`).
   */
  readonly caller?: (req: Request) => AuthContext;
  /** The largest JSON body accepted, in bytes (413 `PAYLOAD_TOO_LARGE` beyond). Default 1 MiB. */
  readonly bodyLimitBytes?: number;
  /** Where `Idempotency-Key` writes are recorded. Default `createIdempotency(store)`. */
  readonly idempotency?: Idempotency;
}

/**
 * The REST routes of the entities, checked against the caller's access
 * like every other path, with their full paths (so a metrics label is the
 * whole template):
 *
 * - `GET /api/entities/<Entity>?limit=&cursor=&order=&where=`: a page of
 *   rows; `X-Next-Cursor` carries the next page's cursor.
 * - `POST /api/entities/<Entity>` (201), `GET`, `PATCH` and `DELETE
 *   /api/entities/<Entity>/<id>`: one row. A write with an
 *   `Idempotency-Key` header is applied once per key (`createIdempotency`):
 *   a repeat answers the recorded response with `Idempotent-Replayed: true`.
 * - `POST /api/batch` (admin token): inserts every operation's row in one
 *   transaction; one bad operation and nothing is written, the error names
 *   its index. Answers `{ids}` in operation order.
 *
 * Mount it after the app's gate, which records the caller (see `caller`);
 * errors go to the app's error handler (`errorHandler` of @svc/schema/http).
 *
 * @example
 * app.use(authenticate({ resolvers })); // @svc/auth-core/express
 * app.use(createEntityRouter(store));
 */
export function createEntityRouter(store: Store, options: EntityRouterOptions = {}): Router {
  const router = express.Router({ caseSensitive: true });
  registerEntityRoutes(router, store, options);
  return router;
}

/**
 * The routes of `createEntityRouter`, registered straight onto `router`
 * (an express app or router), hottest first: on an app each is one layer
 * for express to match, with no mounted router to pass through first.
 *
 * @example
 * registerEntityRoutes(app, store, { bodyLimitBytes: 1024 * 1024 });
 */
export function registerEntityRoutes(
  router: IRouter,
  store: Store,
  options: EntityRouterOptions = {},
): void {
  const caller = options.caller ?? getCaller;
  const idempotency = options.idempotency ?? createIdempotency(store);
  const body = jsonBody(options.bodyLimitBytes ?? 1024 * 1024);

  /** The write a request names with its `Idempotency-Key` header, if any. */
  const writeOf = (req: Request, target: string, args: unknown): IdempotentWrite | undefined => {
    const key = req.get(IDEMPOTENCY_HEADER);
    return key === undefined ? undefined : idempotentWriteOf(caller(req), key, target, args);
  };
  /** An entity write in one transaction, once per key when the request names one. */
  const write = (
    req: Request,
    target: string,
    args: unknown,
    status: number,
    work: (db: EntityWriter) => Promise<unknown>,
  ): Promise<unknown> => {
    const named = writeOf(req, target, args);
    const auth = caller(req);
    if (named === undefined) return store.transaction(auth, work);
    return idempotency.transaction(auth, named, status, (tx) => work(tx.entities));
  };

  // Hottest first: each route is one layer for express to match.
  router.get("/api/entities/:entity", async (req, res) => {
    // The page's JSON text as the store answers it (the same bytes res.json would send).
    const page = await store.queryJSON(
      caller(req),
      String(req.params.entity),
      parseListQuery(req.query),
    );
    if (page.nextCursor !== null) res.setHeader("X-Next-Cursor", page.nextCursor);
    res.set("Content-Type", "application/json").send(page.json);
  });

  router.post("/api/entities/:entity", body, async (req, res) => {
    const data = parseRowFields(req.body);
    const entity = String(req.params.entity);
    const answer = await write(req, `insert:${entity}`, data, 201, (db) => db.insert(entity, data));
    sendAnswer(res, answer, 201);
  });

  router.get("/api/entities/:entity/:id", async (req, res) => {
    const entity = String(req.params.entity);
    const row = await store.reader(caller(req)).get(entity, String(req.params.id));
    if (row === null) throw new StoreError("NOT_FOUND", { message: `No ${entity} with that id.` });
    res.json(row);
  });

  router.patch("/api/entities/:entity/:id", body, async (req, res) => {
    const patch = parseRowFields(req.body);
    const entity = String(req.params.entity);
    const id = String(req.params.id);
    const answer = await write(req, `update:${entity}/${id}`, patch, 200, (db) =>
      db.update(entity, id, patch),
    );
    sendAnswer(res, answer, 200);
  });

  router.delete("/api/entities/:entity/:id", async (req, res) => {
    const entity = String(req.params.entity);
    const id = String(req.params.id);
    const answer = await write(req, `delete:${entity}/${id}`, null, 200, async (db) => {
      await db.delete(entity, id);
      return { deleted: true, id };
    });
    sendAnswer(res, answer, 200);
  });

  const requireAdmin: RequestHandler = (req, _res, next) => {
    const auth = caller(req);
    if (auth.isAdmin) {
      next();
      return;
    }
    next(
      auth.userId === null && req.headers.authorization === undefined
        ? new StoreError("INVALID_TOKEN", {
            message: "This endpoint needs the admin token as a bearer.",
          })
        : new StoreError("ADMIN_REQUIRED"),
    );
  };

  router.post("/api/batch", requireAdmin, body, async (req, res) => {
    const operations = parseBatchBody(req.body);
    const ids = await store.transaction(caller(req), (db) => insertBatch(db, operations));
    res.json({ ids });
  });
}
