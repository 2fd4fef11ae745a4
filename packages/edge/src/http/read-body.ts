import { exceedsDepth, MAX_JSON_DEPTH } from "@svc/schema";
import { EdgeError } from "../errors.js";

/** The default limit of a request body: 1 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 1_048_576;

/**
 * The request's JSON body: `undefined` parses as `{}` (an empty body), text
 * that is not JSON or nests deeper than the schema's limit is 400
 * `INVALID_JSON`, a body over `limit` bytes 413 `PAYLOAD_TOO_LARGE` (read no
 * further than the limit).
 */
export async function readJSONBody(request: Request, limit: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw new EdgeError("PAYLOAD_TOO_LARGE");
  if (request.body === null) return {};
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new EdgeError("PAYLOAD_TOO_LARGE");
    }
    chunks.push(value);
  }
  if (size === 0) return {};
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new EdgeError("INVALID_JSON");
  }
  if (exceedsDepth(parsed, MAX_JSON_DEPTH)) {
    throw new EdgeError(
      "INVALID_JSON",
      `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`,
    );
  }
  return parsed;
}
