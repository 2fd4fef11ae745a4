import { z } from "zod";
import { SyncError } from "./errors.js";

/** Largest page of a pull. */
export const MAX_PULL_LIMIT = 1000;
/** Page size of a pull without `limit`. */
export const DEFAULT_PULL_LIMIT = 100;

// A cursor is a log sequence number: a non-negative safe integer, written in
// decimal on the wire (a string, so bigint-sized values never lose precision
// in a client's JSON parser; 2^53 entries are never reached).
const cursorText = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,15})$/)
  .transform(Number)
  .refine(Number.isSafeInteger);

const limitValue = z.union([
  z.number().int().min(1).max(MAX_PULL_LIMIT),
  z
    .string()
    .regex(/^[1-9][0-9]{0,3}$/)
    .transform(Number)
    .pipe(z.number().max(MAX_PULL_LIMIT)),
]);

/** The input of a pull as it arrives (query string values or typed callers). */
export const pullQuerySchema = z.object({
  since: cursorText.optional(),
  limit: limitValue.optional(),
});

/** The options of `pull`. */
export interface PullQuery {
  /** The cursor of the previous pull; absent: answer only the current cursor. */
  readonly since?: string | undefined;
  /** Entries examined per pull, 1..1000. Default 100. */
  readonly limit?: number | string | undefined;
}

/** Parses a pull's query; throws `INVALID_QUERY`. */
export function parsePullQuery(query: unknown): { since: number | undefined; limit: number } {
  const parsed = pullQuerySchema.safeParse(query);
  if (!parsed.success) throw new SyncError("INVALID_QUERY", { cause: parsed.error });
  return { since: parsed.data.since, limit: parsed.data.limit ?? DEFAULT_PULL_LIMIT };
}

/** A log sequence number as a wire cursor. */
export function formatCursor(seq: number): string {
  return String(seq);
}
