import type { Request } from "express";
import { z } from "zod";
import { StoreError } from "../errors.js";
import type { QueryOptions } from "../types.js";

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

function invalidWhere(): StoreError {
  return new StoreError("INVALID_QUERY", {
    message: "Query parameter where must be a JSON object.",
  });
}

/**
 * The list options of `GET /api/entities/<Entity>?limit=&cursor=&order=&where=`
 * (`order=-field` sorts descending; `where` is a JSON object of equality
 * filters); anything else is 400 `INVALID_QUERY` naming the parameter.
 */
export function parseListQuery(req: Request): QueryOptions {
  const parsed = listQuery.safeParse(req.query);
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
