import { z } from "zod";
import { SyncError } from "./errors.js";
import type { SubscribeFrame } from "./ws-frames.js";

/** The subscription id an event stream uses when its query names none. */
export const DEFAULT_EVENTS_SUBSCRIPTION_ID = "events";

const eventsQuery = z.strictObject({
  id: z.string().min(1).max(128).optional(),
  entity: z.string().min(1).max(128),
  where: z.string().max(8192).optional(),
  order: z
    .string()
    .regex(/^-?[A-Za-z][A-Za-z0-9_]*$/, "must be a field name, with a leading - for descending")
    .optional(),
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,3}$/)
    .transform(Number)
    .pipe(z.number().max(1000))
    .optional(),
  since: z.string().max(32).optional(),
});

function invalid(message: string): SyncError {
  return new SyncError("INVALID_QUERY", { message });
}

function parseWhere(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid("Query parameter where must be a JSON object.");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw invalid("Query parameter where must be a JSON object.");
  }
  return value as Record<string, unknown>;
}

/**
 * The subscription an event stream's query string asks for, as the frame a
 * WebSocket client would send: `?entity=Todo&where={"done":false}&order=-title
 * &limit=50&id=todos&since=<cursor>` (the entity API's conventions). A
 * `Last-Event-ID` (the cursor of the last event the client got) wins over
 * `since`. Throws `INVALID_QUERY` naming the parameter.
 */
export function parseEventsQuery(
  search: URLSearchParams,
  lastEventId: string | undefined,
): SubscribeFrame {
  const raw: Record<string, string> = {};
  for (const [key, value] of search) {
    if (key in raw) throw invalid(`Query parameter ${key} is given twice.`);
    raw[key] = value;
  }
  const parsed = eventsQuery.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.code === "unrecognized_keys" ? issue.keys[0] : issue?.path.join(".");
    throw invalid(`Query parameter ${at ?? "?"}: ${issue?.message ?? "invalid"}.`);
  }
  const { id, entity, where, order, limit, since } = parsed.data;
  const resume = lastEventId !== undefined && lastEventId !== "" ? lastEventId : since;
  return {
    type: "subscribe",
    id: id ?? DEFAULT_EVENTS_SUBSCRIPTION_ID,
    entity,
    ...(where !== undefined && { where: parseWhere(where) }),
    ...(order !== undefined && {
      orderBy: order.startsWith("-")
        ? { field: order.slice(1), direction: "desc" as const }
        : { field: order, direction: "asc" as const },
    }),
    ...(limit !== undefined && { limit }),
    ...(resume !== undefined && { since: resume }),
  };
}
