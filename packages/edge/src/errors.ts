import { commonErrors, type DefinedErrorOptions, defineErrors, type ErrorTable } from "@svc/schema";

/** The wire errors the edge itself raises (the packages bring their own). */
export const edgeErrorCodes = {
  ...commonErrors(
    "ROUTE_NOT_FOUND",
    "NOT_FOUND",
    "INVALID_JSON",
    "PAYLOAD_TOO_LARGE",
    "INVALID_TOKEN",
    "ADMIN_REQUIRED",
    "INVALID_BATCH",
    "INVALID_QUERY",
    "NOT_READY",
  ),
  /**
   * A feature of the Node server that an edge Worker cannot serve (live
   * sync, rooms, jobs, local files, studio, ...): the message names the
   * deployment shape to use instead.
   */
  NOT_AVAILABLE_ON_EDGE: {
    status: 501,
    message: "This feature is not available on the edge worker; run the svc server instead.",
  },
  /** A write kept losing to concurrent writes (each attempt found the database changed). */
  WRITE_CONFLICT: {
    status: 503,
    message: "The write kept conflicting with concurrent writes; try again.",
  },
} as const satisfies ErrorTable;

export type EdgeErrorCode = keyof typeof edgeErrorCodes;

/**
 * An error of the edge's HTTP layer, made by `defineErrors` from
 * `edgeErrorCodes`; always safe to show the client. The second argument is
 * a message replacing the table's, or the options of `defineErrors`.
 */
export class EdgeError extends defineErrors("EdgeError", edgeErrorCodes) {
  constructor(
    code: EdgeErrorCode,
    message?: string | DefinedErrorOptions,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(code, typeof message === "object" ? message : { ...options, message });
  }
}
