import { isWireError } from "@svc/schema";
import type { Store } from "@svc/store";
import type { IRouter, RequestHandler } from "express";
import { z } from "zod";
import { ServerError } from "../../errors.js";
import { authOf, requireAdmin } from "../request-auth.js";

/** The most operations one batch may carry. */
export const MAX_BATCH_OPERATIONS = 1000;

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

/** An error raised by one operation, re-labelled with its index. */
function atOperation(index: number, error: unknown): unknown {
  if (isWireError(error) && error instanceof Error) {
    error.message = `operations[${index}]: ${error.message}`;
  }
  return error;
}

/**
 * `POST /api/batch` (admin token): inserts every operation's row in one
 * transaction. One bad operation and nothing is written; the error names its
 * index. Answers `{ids}` in operation order.
 */
export function registerBatchRoutes(app: IRouter, store: Store, body: RequestHandler): void {
  app.post("/api/batch", requireAdmin, body, async (req, res) => {
    const parsed = batchBody.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join(".") : "body";
      throw new ServerError("INVALID_BATCH", `${where}: ${issue?.message ?? "invalid"}.`);
    }
    const { operations } = parsed.data;
    const ids = await store.transaction(authOf(req), async (db) => {
      const out: string[] = [];
      for (const [index, operation] of operations.entries()) {
        try {
          out.push((await db.insert(operation.entity, operation.data)).id);
        } catch (error) {
          throw atOperation(index, error);
        }
      }
      return out;
    });
    res.json({ ids });
  });
}
