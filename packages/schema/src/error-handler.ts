import { type ErrorResponse, toErrorResponse } from "./wire-error.js";

/**
 * The part of a Node `ServerResponse` (and so of an express `Response`) the
 * error handler writes to; kept structural so this package stays free of
 * `node:` and express imports.
 */
export interface ErrorResponseTarget {
  readonly headersSent: boolean;
  statusCode: number;
  getHeader(name: string): number | string | readonly string[] | undefined;
  setHeader(name: string, value: number | string | readonly string[]): unknown;
  end(chunk?: string): unknown;
}

/**
 * Writes `response` (from `toErrorResponse`) as JSON with its status and
 * headers, after `extraHeaders` (e.g. CORS headers of the route). A
 * `Set-Cookie` header is added to the ones already set, never replacing
 * them. When the headers are already sent it only ends the response.
 */
export function sendErrorResponse(
  res: ErrorResponseTarget,
  response: ErrorResponse,
  extraHeaders: Readonly<Record<string, string | readonly string[]>> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries({ ...extraHeaders, ...response.headers })) {
    if (name.toLowerCase() === "set-cookie") {
      const previous = res.getHeader(name);
      const before =
        previous === undefined ? [] : Array.isArray(previous) ? previous : [String(previous)];
      res.setHeader(name, [...before, ...(typeof value === "string" ? [value] : value)]);
    } else {
      res.setHeader(name, typeof value === "string" ? value : [...value]);
    }
  }
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.statusCode = response.status;
  res.end(JSON.stringify(response.body));
}

/** Options of `errorHandler`. */
export interface ErrorHandlerOptions<TRequest> {
  /**
   * Called with every error that is internal (answered with a generic 500)
   * or exposed with a 5xx status (its cause belongs in the log). Default:
   * `console.error`.
   */
  readonly onError?: (error: unknown, req: TRequest, response: ErrorResponse) => void;
}

/** An express-compatible error middleware: four parameters, so express knows it handles errors. */
export type HttpErrorHandler<TRequest = unknown> = (
  error: unknown,
  req: TRequest,
  res: ErrorResponseTarget,
  next: (error?: unknown) => void,
) => void;

/**
 * The one HTTP error handler of svc: every thrown value becomes the svc
 * envelope through `toErrorResponse` (a wire error keeps its code, status,
 * message, details and headers; anything else is a generic 500). Mount it
 * last on an express app (`app.use(errorHandler())`), or call it from any
 * Node HTTP server.
 *
 * @example
 * import { errorHandler } from "@svc/schema/http";
 * app.use(createAuthRouter({ auth }));
 * app.use(errorHandler({ onError: (error) => log.error(error) }));
 */
export function errorHandler<TRequest = unknown>(
  options: ErrorHandlerOptions<TRequest> = {},
  // NoInfer: the request type comes from `onError` (or stays `unknown`), never
  // from where the handler is passed (express's overloads would pick a wrong one).
): HttpErrorHandler<NoInfer<TRequest>> {
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  return (error, req, res, _next) => {
    const response = toErrorResponse(error);
    if (response.internal || response.status >= 500) onError(error, req, response);
    sendErrorResponse(res, response);
  };
}
