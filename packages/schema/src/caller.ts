import type { AuthContext } from "./auth-context.js";
import { commonError } from "./common-errors.js";
import { defineErrors } from "./define-errors.js";

/**
 * Where the request accessor keeps a request's caller, and whether it came
 * from the session cookie (what CSRF protection guards): two properties
 * under symbols, which JSON, `Object.keys` and `for…in` leave out. Set on
 * every request, they cost less than weak-map entries, which grow a table
 * the garbage collector has to sweep (about 1.4 us a request in the
 * function bench). The keys are `Symbol.for`, so two copies of this
 * package in one process (a bundled router beside the server's) still
 * read one another's callers.
 */
const CALLER = Symbol.for("@svc/schema.caller");
const FROM_COOKIE = Symbol.for("@svc/schema.caller-from-cookie");

interface CallerSlots {
  [CALLER]?: AuthContext;
  [FROM_COOKIE]?: boolean;
}

/** `getCaller`'s refusal: 401 `AUTH_REQUIRED`, the common code. */
class CallerError extends defineErrors(
  "CallerError",
  commonError("AUTH_REQUIRED", "No caller was resolved for this request."),
) {}

/** What `setCaller` may add. */
export interface SetCallerOptions {
  /** The caller came from the session cookie (not a bearer token). Default false. */
  readonly cookie?: boolean;
}

/**
 * Records the caller of a request, for every router after the gate to read
 * with `getCaller`. The HTTP gate (@svc/auth-core's `authenticate`) calls
 * it once per request; a third party with a gate of its own may too.
 *
 * @example
 * setCaller(req, createAuthContext({ userId: "u1", via: "session", sessionId: "s1" }));
 */
export function setCaller(req: object, caller: AuthContext, options?: SetCallerOptions): void {
  const slots = req as CallerSlots;
  slots[CALLER] = caller;
  slots[FROM_COOKIE] = options?.cookie === true;
}

/**
 * The caller the gate resolved for this request: the one way for any router
 * (auth, OAuth, billing, sync, jobs, files) to learn who calls. A request
 * the gate never saw (a wiring mistake, or a path the gate did not match)
 * has no caller: that throws 401 `AUTH_REQUIRED`, a refusal the client sees
 * as such, never a 500 and never an anonymous pass.
 *
 * @example
 * router.get("/api/thing", (req, res) => res.json({ me: getCaller(req).userId }));
 */
export function getCaller(req: object): AuthContext {
  const caller = (req as CallerSlots)[CALLER];
  if (caller === undefined) {
    throw new CallerError("AUTH_REQUIRED", {
      cause: new Error("@svc/schema: no caller was set for this request (is the gate mounted?)"),
    });
  }
  return caller;
}

/**
 * The caller of this request, or undefined when none was resolved (a route
 * outside the gate, or a request refused before): for logs and traces,
 * which must not throw. Routes use `getCaller`.
 *
 * @example
 * const kind = findCaller(req)?.via ?? "anonymous";
 */
export function findCaller(req: object): AuthContext | undefined {
  return (req as CallerSlots)[CALLER];
}

/** Whether the caller of this request came from the session cookie (what CSRF protection guards). */
export function isCookieCaller(req: object): boolean {
  return (req as CallerSlots)[FROM_COOKIE] === true;
}
