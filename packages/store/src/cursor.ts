import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";

/** What a page cursor remembers: the sort it belongs to and the last row's position. */
export interface CursorPosition {
  /** `field:direction` of the sort the cursor was made for. */
  readonly order: string;
  /** The last row's sort value as the API shows it (absent when sorting by id). */
  readonly value: unknown;
  readonly id: string;
}

/** Makes and reads the page cursors of one store. */
export interface CursorCodec {
  /** A cursor for a page of `entity`, as opaque signed text. */
  encode(entity: string, position: CursorPosition): string;
  /**
   * The position a cursor of `entity` holds; null when the text is not a
   * cursor this codec made for that entity (malformed, edited, truncated,
   * signed with another secret, or made for another entity). The value and
   * id are not checked here: the query checks them against the entity.
   */
  decode(entity: string, text: unknown): CursorPosition | null;
}

const MAX_CURSOR_LENGTH = 8192;
// 128 bits of HMAC-SHA256, as base64url: 22 characters.
const MAC_BYTES = 16;
const MAC_LENGTH = 22;
const SIGNED = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/;

// The key of stores given no secret: one per process, so the stores of one
// process accept each other's cursors (and nothing else does).
let processSecret: Buffer | undefined;

function keyOf(secret: string | Uint8Array | undefined): Buffer {
  processSecret ??= randomBytes(32);
  // HKDF keeps this key apart from anything else the deployment's secret keys.
  return Buffer.from(hkdfSync("sha256", secret ?? processSecret, "svc-store", "page-cursor", 32));
}

/**
 * A codec whose cursors are `<payload>.<mac>`: the payload is base64url
 * JSON of the position, the mac 128 bits of HMAC-SHA256 over the entity
 * name and the payload, under a key derived (HKDF) from `secret`. Servers
 * that share a secret accept each other's cursors. Without a secret the key
 * is random per process: cursors then stop working across restarts and
 * between servers.
 */
export function createCursorCodec(secret?: string | Uint8Array): CursorCodec {
  const key = keyOf(secret);
  const macOf = (entity: string, payload: string): string =>
    createHmac("sha256", key)
      .update(`${entity.length}:${entity};`)
      .update(payload)
      .digest()
      .subarray(0, MAC_BYTES)
      .toString("base64url");
  return {
    encode(entity, position) {
      const payload = Buffer.from(
        JSON.stringify({ o: position.order, v: position.value, i: position.id }),
      ).toString("base64url");
      return `${payload}.${macOf(entity, payload)}`;
    },
    decode(entity, text) {
      if (typeof text !== "string" || text.length > MAX_CURSOR_LENGTH) return null;
      const match = SIGNED.exec(text);
      const payload = match?.[1];
      const mac = match?.[2];
      if (payload === undefined || mac === undefined) return null;
      // The mac's text is compared, not its decoded bytes: base64url decoding
      // ignores the last character's spare bits, so an edited character
      // could decode to the same bytes.
      const expected = Buffer.from(macOf(entity, payload));
      const given = Buffer.from(mac);
      if (given.length !== MAC_LENGTH || !timingSafeEqual(given, expected)) return null;
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      } catch {
        return null;
      }
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
      const { o, v, i } = parsed as Record<string, unknown>;
      if (typeof o !== "string" || typeof i !== "string") return null;
      return { order: o, value: v ?? null, id: i };
    },
  };
}
