import type { QueryContext } from "@svc/functions";

/** The read half of `ctx.db`, which queries and mutations both have. */
type EntityReader = QueryContext["db"];

/**
 * The `createdAt` for a new message of a conversation: now, or one
 * millisecond after its latest message if that is not earlier, so a reply
 * stored in the same millisecond as its question still sorts after it.
 */
export async function nextCreatedAt(db: EntityReader, conversationId: string): Promise<string> {
  const latest = await db.query("Message", {
    where: { conversationId },
    orderBy: { field: "createdAt", direction: "desc" },
    limit: 1,
  });
  const last = latest.rows[0]?.createdAt;
  const lastMs = typeof last === "string" ? Date.parse(last) : Number.NEGATIVE_INFINITY;
  return new Date(Math.max(Date.now(), lastMs + 1)).toISOString();
}

/** The conversation's latest messages, oldest first, as the model reads them. */
export async function recentHistory(
  db: EntityReader,
  conversationId: string,
  limit: number,
): Promise<{ role: "user" | "assistant"; content: string }[]> {
  const page = await db.query("Message", {
    where: { conversationId },
    orderBy: { field: "createdAt", direction: "desc" },
    limit,
  });
  return page.rows
    .map((row) => ({ role: row.role as "user" | "assistant", content: row.content as string }))
    .reverse();
}
