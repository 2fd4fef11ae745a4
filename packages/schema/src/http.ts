/**
 * `@svc/schema/http`: the one HTTP error handler every svc router and the
 * server use, written against Node's response API (express included).
 */
export {
  type ErrorHandlerOptions,
  type ErrorResponseTarget,
  errorHandler,
  type HttpErrorHandler,
  sendErrorResponse,
} from "./error-handler.js";
