import { isWireError } from "@svc/schema";
import { z } from "zod";
import { StoreError } from "./errors.js";
import type { EntityWriter, QueryOptions } from "./types.js";

// The entity REST routes' inputs, read without any HTTP framework: express
// (`@svc/store/express`) and the edge worker answer the same requests and
// must refuse the same inputs with the same errors.

/** The most operations one `POST /api/batch` may carry. */
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

const whereObject = z.record(z.string(), z.unknown());

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

/** One insert of a `POST /api/batch` body. */
export type BatchOperation = z.infer<typeof batchBody>["operations"][number];

function invalidWhere(): StoreError {
  return new StoreError("INVALID_QUERY", {
    message: "Query parameter where must be a JSON object.",
  });
}

/**
 * The list options of `GET /api/entities/<Entity>?limit=&cursor=&order=&where=`
 * from its query parameters (`order=-field` sorts descending; `where` is a
 * JSON object of equality filters); anything else is 400 `INVALID_QUERY`
 * naming the parameter.
 *
 * @example
 * parseListQuery(Object.fromEntries(url.searchParams)); // { limit: 20, orderBy: { field: "title", direction: "desc" } }
 */
export function parseListQuery(params: Readonly<Record<string, unknown>>): QueryOptions {
  const parsed = listQuery.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.join(".") || (issue?.code === "unrecognized_keys" ? issue.keys[0] : "");
    throw new StoreError("INVALID_QUERY", {
      message: `Query parameter ${at ?? "?"}: ${issue?.message}.`,
    });
  }
  const { limit, cursor, order, where } = parsed.data;
  let filters: Record<string, unknown> | undefined;
  if (where !== undefined) {
    let raw: unknown;
    try {
      raw = JSON.parse(where);
    } catch {
      throw invalidWhere();
    }
    const object = whereObject.safeParse(raw);
    if (!object.success) throw invalidWhere();
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

/** A parsed insert or update body as an object of field values, or 400 `INVALID_JSON`. */
export function parseRowFields(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new StoreError("INVALID_JSON", {
      message: "The request body must be a JSON object of fields.",
    });
  }
  return body as Record<string, unknown>;
}

/**
 * The operations of a parsed `POST /api/batch` body (`{operations: [{op:
 * "insert", entity, data}, ...]}`, 1 to `MAX_BATCH_OPERATIONS`), or 400
 * `INVALID_BATCH` naming the first bad path.
 */
export function parseBatchBody(body: unknown): BatchOperation[] {
  const parsed = batchBody.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "body";
    throw new StoreError("INVALID_BATCH", {
      message: `${where}: ${issue?.message ?? "invalid"}.`,
    });
  }
  return parsed.data.operations;
}

/**
 * Inserts every operation's row through `db` (one transaction's writer), in
 * order, and answers their ids; a wire error of one operation is re-labelled
 * `operations[<index>]: ...` so the client knows which one failed.
 */
export async function insertBatch(
  db: EntityWriter,
  operations: readonly BatchOperation[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const [index, operation] of operations.entries()) {
    try {
      ids.push((await db.insert(operation.entity, operation.data)).id);
    } catch (error) {
      if (isWireError(error) && error instanceof Error) {
        error.message = `operations[${index}]: ${error.message}`;
      }
      throw error;
    }
  }
  return ids;
}
