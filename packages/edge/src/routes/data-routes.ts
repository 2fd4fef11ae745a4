import type { FunctionRunner } from "@svc/functions";
import type { AuthContext } from "@svc/schema";
import {
  insertBatch,
  parseBatchBody,
  parseListQuery,
  parseRowFields,
  type Store,
} from "@svc/store";
import { EdgeError } from "../errors.js";
import { jsonResponse } from "../http/responses.js";
import { retryOnConflict } from "../retry.js";

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
        const operations = parseBatchBody(await input.body());
        const ids = await retryOnConflict(() =>
          store.transaction(caller, (db) => insertBatch(db, operations)),
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
          const page = await store.queryJSON(
            await input.caller(),
            entity,
            parseListQuery(Object.fromEntries(url.searchParams)),
          );
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
          const data = parseRowFields(body);
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
          const patch = parseRowFields(body);
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
