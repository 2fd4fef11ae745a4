import type { ExistsLookupCondition, ExistsResolver } from "@svc/policy-engine";
import type { OperationContext } from "./read-ops.js";

/**
 * Answers a policy's `exists(Entity where ...)` with one query in the
 * caller's transaction. Values arrive in API form and are encoded per column
 * like any other write (booleans as 0/1 on SQLite, and so on).
 */
export function existsResolver(ctx: OperationContext): ExistsResolver {
  return async (entity: string, conditions: readonly ExistsLookupCondition[]) => {
    const model = ctx.models.get(entity);
    if (model === undefined) return false;
    let query = ctx.db.selectFrom(entity).select("id");
    for (const { field, value } of conditions) {
      if (value === null) {
        query = query.where(field, "is", null);
        continue;
      }
      const encode = model.fields.get(field)?.encode;
      query = query.where(field, "=", encode === undefined ? value : encode(value));
    }
    return (await query.limit(1).executeTakeFirst()) !== undefined;
  };
}
