import {
  commonError,
  commonErrors,
  type DefinedErrorOptions,
  defineErrors,
  type ErrorDefinition,
  type ErrorTable,
} from "@svc/schema";

/**
 * Every failure @svc/functions reports, keyed by a stable code. `status` is
 * set for wire errors (sent to API clients as `{ error: { code, message } }`);
 * boot errors have none and stop the server instead.
 */
export const functionsErrorCodes = {
  ...commonError("AUTH_REQUIRED", "Sign in to call this function."),
  FUNCTION_NOT_FOUND: { status: 404, message: "No function with this name exists." },
  GUEST_NOT_ALLOWED: { status: 403, message: "A guest session may not call this function." },
  INVALID_ARGS: { status: 400, message: "The function arguments are invalid." },
  QUERY_CANNOT_WRITE: {
    status: 500,
    message: "A query cannot write; move the write into a mutation.",
  },
  INVALID_SCHEDULE: {
    status: 500,
    message:
      "ctx.scheduler: the delay must be a non-negative number of milliseconds, and the time at most ten years ahead.",
  },
  SCHEDULER_UNAVAILABLE: {
    status: 501,
    message:
      "ctx.scheduler is not available here (no job queue is configured, or this is a delete hook).",
  },
  WRONG_FUNCTION_TYPE: {
    status: 500,
    message: "The called function is not of the expected type.",
  },
  INVALID_RESULT: { status: 500, message: "The function returned a value JSON cannot carry." },
  FUNCTION_FAILED: { status: 500, message: "The function failed." },
  NOT_A_MEMBER: {
    status: 403,
    message: "The caller is not a member of this organization with a permitted role.",
  },
  MEMBERSHIP_UNAVAILABLE: {
    status: 501,
    message:
      "ctx.requireMember needs the membership entity the manifest's auth.org names (default OrgMember).",
  },
  INVALID_EMAIL: {
    status: 400,
    message: "ctx.email.send: the recipients, subject or text are invalid.",
  },
  ...commonErrors("EMAIL_SEND_FAILED"),
  EMAIL_UNAVAILABLE: {
    status: 501,
    message: "ctx.email is not available in a delete hook; send from the mutation or an action.",
  },
  FUNCTION_LOAD_FAILED: { status: undefined, message: "A function file failed to load." },
  INVALID_FUNCTION: {
    status: undefined,
    message: "A function file does not define a query, mutation or action.",
  },
} as const satisfies ErrorTable;

/** A code of the table above. */
export type FunctionsErrorCode = keyof typeof functionsErrorCodes;

/**
 * A code an application raises through `ctx.error`, UPPER_SNAKE by contract
 * (checked at runtime). `string & {}` keeps editor completion for the table.
 */
export type ApplicationErrorCode = string & {};

/** Options of a `FunctionsError`; `message` defaults to the code table's. */
export interface FunctionsErrorOptions {
  readonly message?: string;
  /** The underlying error; never sent to clients. */
  readonly cause?: unknown;
}

/** Options of an application error raised through `ctx.error`. */
export interface ApplicationErrorOptions {
  readonly message: string;
  /** HTTP status, 400..599. */
  readonly status: number;
}

const UPPER_SNAKE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/** Whether `code` is UPPER_SNAKE (`TODO_NOT_FOUND`, `RATE_LIMITED_2`). */
export function isUpperSnakeCode(code: string): boolean {
  return UPPER_SNAKE.test(code);
}

/**
 * The table `FunctionsError` is made from, typed to take an application's
 * codes too: `ctx.error` raises codes of its own, outside the table.
 */
type FunctionsErrorTable = typeof functionsErrorCodes &
  Readonly<Record<ApplicationErrorCode, ErrorDefinition>>;

/**
 * The single error class of @svc/functions, made by `defineErrors` from
 * `functionsErrorCodes`; tell cases apart by `code`. Wire errors carry a
 * `status` and `expose: true`, so the HTTP layer may send `code` and
 * `message` to the client. Boot errors (`FUNCTION_LOAD_FAILED`,
 * `INVALID_FUNCTION`) have no status and stop the server. An application
 * error (`ctx.error`) has its own code, message and status.
 *
 * @example
 * ```ts
 * try {
 *   await runner.run("createTodo", { title: 1 }, auth);
 * } catch (error) {
 *   if (error instanceof FunctionsError && error.code === "INVALID_ARGS") console.log(error.message);
 * }
 * ```
 */
export class FunctionsError extends defineErrors<FunctionsErrorTable>(
  "FunctionsError",
  functionsErrorCodes,
) {
  declare readonly code: FunctionsErrorCode | ApplicationErrorCode;

  constructor(code: FunctionsErrorCode, options?: FunctionsErrorOptions);
  constructor(code: ApplicationErrorCode, options: ApplicationErrorOptions);
  constructor(code: string, options: DefinedErrorOptions = {}) {
    // `defineErrors` knows only the table's codes. An application error
    // always brings its message and status, so it starts from
    // FUNCTION_FAILED's entry and then takes its own code.
    super(isFunctionsErrorCode(code) ? code : "FUNCTION_FAILED", options);
    this.code = code;
  }
}

function isFunctionsErrorCode(code: string): code is FunctionsErrorCode {
  return Object.hasOwn(functionsErrorCodes, code);
}
