import { toErrorResponse } from "@svc/schema";

/** A JSON response with `status` (default 200). */
export function jsonResponse(
  body: unknown,
  status = 200,
  headers: Readonly<Record<string, string | readonly string[]>> = {},
): Response {
  const response = new Response(JSON.stringify(body ?? null), {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
  for (const [name, value] of Object.entries(headers)) {
    for (const item of typeof value === "string" ? [value] : value) {
      response.headers.append(name, item);
    }
  }
  return response;
}

/**
 * The spec's error envelope for anything thrown: a wire error as it is, an
 * unexpected one as 500 `INTERNAL_ERROR` with no detail (reported to `onInternalError`).
 */
export function errorResponse(error: unknown, onInternalError: (error: unknown) => void): Response {
  const { status, body, headers, internal } = toErrorResponse(error);
  // A 501 for what the edge does not serve is an answer, not a fault.
  if (internal || (status >= 500 && status !== 501)) onInternalError(error);
  return jsonResponse(body, status, headers);
}
