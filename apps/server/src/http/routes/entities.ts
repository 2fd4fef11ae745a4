import type { QueryOptions, Store } from "@svc/store";
import type { IRouter, Request, RequestHandler } from "express";
import { z } from "zod";
import { ServerError } from "../../errors.js";
import {
  createIdempotency,
  type Idempotency,
  idempotentWriteOf,
  sendAnswer,
} from "../idempotency.js";
import { authOf } from "../request-auth.js";

const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  cursor: z.string().min(1).optional(),
  order: z
    .string()
    .regex(/^-?[A-Za-z][A-Za-z0-9_]*$/, "must be a field name, with a leading - for descending")
    .optional(),
  where: z.string().optional(),
});

const whereObject = z.record(z.string(), z.unknown());

function parseListQuery(req: Request): QueryOptions {
  const parsed = listQuery.safeParse(req.query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.join(".") || (issue?.code === "unrecognized_keys" ? issue.keys[0] : "");
    throw new ServerError("INVALID_QUERY", `Query parameter ${at ?? "?"}: ${issue?.message}.`);
  }
  const { limit, cursor, order, where } = parsed.data;
  let filters: Record<string, unknown> | undefined;
  if (where !== undefined) {
    let raw: unknown;
    try {
      raw = JSON.parse(where);
    } catch {
      throw new ServerError("INVALID_QUERY", "Query parameter where must be a JSON object.");
    }
    const object = whereObject.safeParse(raw);
    if (!object.success) {
      throw new ServerError("INVALID_QUERY", "Query parameter where must be a JSON object.");
    }
    filters = object.data;
  }
  return {
    ...(limit !== undefined && { limit }),
    ...(cursor !== undefined && { cursor }),
    ...(filters !== undefined && { where: filters }),
    ...(order !== undefined && {
      orderBy: order.startsWith("-")
        ? { field: order.slice(1), direction: "desc" as const }
        : { field: order, direction: "asc" as const },
    }),
  };
}

/** The parsed body as an object of field values, or 400 `INVALID_JSON`. */
function fieldsOf(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ServerError("INVALID_JSON", "The request body must be a JSON object of fields.");
  }
  return body as Record<string, unknown>;
}

/**
 * REST access to entities, checked against the caller's access like every
 * other path: list (`X-Next-Cursor` carries the next page), create, read,
 * patch and delete one row. A write with an `Idempotency-Key` header is
 * applied once per key (see `createIdempotency`).
 */
export function registerEntityRoutes(
  app: IRouter,
  store: Store,
  body: RequestHandler,
  idempotency: Idempotency = createIdempotency({ store }),
): void {
  app.get("/api/entities/:entity", async (req, res) => {
    // The page's JSON text as the store answers it (the same bytes res.json would send).
    const page = await store.queryJSON(authOf(req), String(req.params.entity), parseListQuery(req));
    if (page.nextCursor !== null) res.setHeader("X-Next-Cursor", page.nextCursor);
    res.set("Content-Type", "application/json").send(page.json);
  });

  app.post("/api/entities/:entity", body, async (req, res) => {
    const data = fieldsOf(req);
    const entity = String(req.params.entity);
    const write = idempotentWriteOf(req, `insert:${entity}`, data);
    const answer = await idempotency.entityWrite(authOf(req), write, 201, (db) =>
      db.insert(entity, data),
    );
    sendAnswer(res, answer, 201);
  });

  app.get("/api/entities/:entity/:id", async (req, res) => {
    const entity = String(req.params.entity);
    const row = await store.reader(authOf(req)).get(entity, String(req.params.id));
    if (row === null) {
      throw new ServerError("NOT_FOUND", `No ${entity} with that id.`);
    }
    res.json(row);
  });

  app.patch("/api/entities/:entity/:id", body, async (req, res) => {
    const patch = fieldsOf(req);
    const entity = String(req.params.entity);
    const id = String(req.params.id);
    const write = idempotentWriteOf(req, `update:${entity}/${id}`, patch);
    const answer = await idempotency.entityWrite(authOf(req), write, 200, (db) =>
      db.update(entity, id, patch),
    );
    sendAnswer(res, answer, 200);
  });

  app.delete("/api/entities/:entity/:id", async (req, res) => {
    const entity = String(req.params.entity);
    const id = String(req.params.id);
    const write = idempotentWriteOf(req, `delete:${entity}/${id}`, null);
    const answer = await idempotency.entityWrite(authOf(req), write, 200, async (db) => {
      await db.delete(entity, id);
      return { deleted: true, id };
    });
    sendAnswer(res, answer, 200);
  });
}
