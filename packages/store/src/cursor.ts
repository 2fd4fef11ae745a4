/** What a page cursor remembers: the sort it belongs to and the last row's position. */
export interface CursorPosition {
  /** `field:direction` of the sort the cursor was made for. */
  readonly order: string;
  /** The last row's sort value as the API shows it (absent when sorting by id). */
  readonly value: unknown;
  readonly id: string;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MAX_CURSOR_LENGTH = 8192;

/** Encodes a cursor as opaque base64url text. */
export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(
    JSON.stringify({ o: position.order, v: position.value, i: position.id }),
  ).toString("base64url");
}

/**
 * Decodes a cursor made by `encodeCursor`; null when the text is not one.
 * The value and id are not checked here: the query checks them against the
 * entity.
 */
export function decodeCursor(text: unknown): CursorPosition | null {
  if (typeof text !== "string" || text.length > MAX_CURSOR_LENGTH || !BASE64URL.test(text)) {
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const { o, v, i } = parsed as Record<string, unknown>;
  if (typeof o !== "string" || typeof i !== "string") return null;
  return { order: o, value: v ?? null, id: i };
}
