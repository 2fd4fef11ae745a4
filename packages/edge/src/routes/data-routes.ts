import type { FunctionRunner } from "@svc/functions";
import { type AuthContext, isWireError } from "@svc/schema";
import type { QueryOptions, Store } from "@svc/store";
import { z } from "zod";
import { EdgeError } from "../errors.js";
import { jsonResponse } from "../http/responses.js";
import { retryOnConflict } from "../retry.js";

/** The most operations one `/api/batch` call may carry (as on the server). */
export const MAX_BATCH_OPERATIONS = 1000;

const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  cursor: z.string().min(1).optional(),
  order: z
    .string()
    .regex(/^-?[A-Za-z][A-Za-z0-9_]*$/, "must be a field name, with a leading - for descending")
    .optional(),
  where: z.string().optional(),
});

const batchBody = z.strictObject({
  operations: z
    .array(
      z.strictObject({
        op: z.literal("insert"),
        entity: z.string().min(1),
        data: z.record(z.string(), z.unknown()),
      }),
    )
    .min(1)
    .max(MAX_BATCH_OPERATIONS),
});

function parseListQuery(url: URL): QueryOptions {
  const parsed = listQuery.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.join(".") || (issue?.code === "unrecognized_keys" ? issue.keys[0] : "");
    throw new EdgeError("INVALID_QUERY", `Query parameter ${at ?? "?"}: ${issue?.message}.`);
  }
  const { limit, cursor, order, where } = parsed.data;
  let filters: Record<string, unknown> | undefined;
  if (where !== undefined) {
    let raw: unknown;
    try {
      raw = JSON.parse(where);
    } catch {
      throw new EdgeError("INVALID_QUERY", "Query parameter where must be a JSON object.");
    }
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      throw new EdgeError("INVALID_QUERY", "Query parameter where must be a JSON object.");
    }
    filters = raw as Record<string, unknown>;
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

function fieldsOf(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new EdgeError("INVALID_JSON", "The request body must be a JSON object of fields.");
  }
  return body as Record<string, unknown>;
}

/** What a data route gets. */
export interface DataRouteInput {
  readonly method: string;
  readonly url: URL;
  readonly caller: () => Promise<AuthContext>;
  readonly body: () => Promise<unknown>;
  readonly request: Request;
}

/**
 * `POST /api/fn/<name>`, the entity routes and `POST /api/batch`, as the
 * server answers them. Every write runs in a store transaction; one that
 * loses to a concurrent write runs again (`retryOnConflict`).
 */
export function createDataRoutes(options: {
  store: Store;
  runner: FunctionRunner;
}): (input: DataRouteInput) => Promise<Response> | null {
  const { store, runner } = options;
  return (input) => {
    const { method, url } = input;
    const path = url.pathname;
    if (path.startsWith("/api/fn/")) {
      if (method !== "POST") return null;
      const name = decodeURIComponent(path.slice("/api/fn/".length));
      return (async () => {
        const [caller, args] = await Promise.all([input.caller(), input.body()]);
        return jsonResponse(await retryOnConflict(() => runner.run(name, args, caller)));
      })();
    }
    if (path === "/api/batch" && method === "POST") {
      return (async () => {
        const caller = await input.caller();
        if (!caller.isAdmin) {
          throw caller.userId === null && input.request.headers.get("authorization") === null
            ? new EdgeError("INVALID_TOKEN", "This endpoint needs the admin token as a bearer.")
            : new EdgeError("ADMIN_REQUIRED");
        }
        const parsed = batchBody.safeParse(await input.body());
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const where = issue?.path.length ? issue.path.join(".") : "body";
          throw new EdgeError("INVALID_BATCH", `${where}: ${issue?.message ?? "invalid"}.`);
        }
        const { operations } = parsed.data;
        const ids = await retryOnConflict(() =>
          store.transaction(caller, async (db) => {
            const out: string[] = [];
            for (const [index, operation] of operations.entries()) {
              try {
                out.push((await db.insert(operation.entity, operation.data)).id);
              } catch (error) {
                if (isWireError(error) && error instanceof Error) {
                  error.message = `operations[${index}]: ${error.message}`;
                }
                throw error;
              }
            }
            return out;
          }),
        );
        return jsonResponse({ ids });
      })();
    }
    const match = /^\/api\/entities\/([^/]+)(?:\/([^/]+))?$/.exec(path);
    if (match === null) return null;
    const entity = decodeURIComponent(match[1] as string);
    const id = match[2] === undefined ? undefined : decodeURIComponent(match[2]);
    if (id === undefined) {
      if (method === "GET") {
        return (async () => {
          const page = await store.queryJSON(await input.caller(), entity, parseListQuery(url));
          return new Response(page.json, {
            headers: {
              "content-type": "application/json; charset=utf-8",
              ...(page.nextCursor !== null && { "x-next-cursor": page.nextCursor }),
            },
          });
        })();
      }
      if (method === "POST") {
        return (async () => {
          const [caller, body] = await Promise.all([input.caller(), input.body()]);
          const data = fieldsOf(body);
          const row = await retryOnConflict(() =>
            store.transaction(caller, (db) => db.insert(entity, data)),
          );
          return jsonResponse(row, 201);
        })();
      }
      return null;
    }
    switch (method) {
      case "GET":
        return (async () => {
          const row = await store.reader(await input.caller()).get(entity, id);
          if (row === null) throw new EdgeError("NOT_FOUND", `No ${entity} with that id.`);
          return jsonResponse(row);
        })();
      case "PATCH":
        return (async () => {
          const [caller, body] = await Promise.all([input.caller(), input.body()]);
          const patch = fieldsOf(body);
          const row = await retryOnConflict(() =>
            store.transaction(caller, (db) => db.update(entity, id, patch)),
          );
          return jsonResponse(row);
        })();
      case "DELETE":
        return (async () => {
          const caller = await input.caller();
          await retryOnConflict(() => store.transaction(caller, (db) => db.delete(entity, id)));
          return jsonResponse({ deleted: true, id });
        })();
      default:
        return null;
    }
  };
}
