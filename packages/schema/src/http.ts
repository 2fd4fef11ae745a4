/**
 * `@svc/schema/http`: the one HTTP error handler every svc router and the
 * server use, written against Node's response API (express included); and
 * the one caller seam: who calls a request (`getCaller`) and the one
 * bearer-resolution entry point (`resolveCaller`) that the HTTP gate and
 * the live transports share.
 */
export {
  findCaller,
  getCaller,
  isCookieCaller,
  type SetCallerOptions,
  setCaller,
} from "./caller.js";
export {
  type ErrorHandlerOptions,
  type ErrorResponseTarget,
  errorHandler,
  type HttpErrorHandler,
  sendErrorResponse,
} from "./error-handler.js";
export { readCookie } from "./read-cookie.js";
export {
  type CallerCookie,
  type CallerRequest,
  type CallerRequestInfo,
  type CallerResolution,
  type CallerResolver,
  type CallerSources,
  type ResolveCallerOptions,
  resolveCaller,
} from "./resolve-caller.js";
