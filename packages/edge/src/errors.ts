/** The wire errors the edge itself raises (the packages bring their own). */
export const edgeErrorCodes = {
  ROUTE_NOT_FOUND: { status: 404, message: "No such route." },
  NOT_FOUND: { status: 404, message: "No such record." },
  INVALID_JSON: { status: 400, message: "The request body is not valid JSON." },
  PAYLOAD_TOO_LARGE: { status: 413, message: "The request body is too large." },
  INVALID_TOKEN: { status: 401, message: "The bearer token is not valid." },
  ADMIN_REQUIRED: { status: 403, message: "This endpoint needs the admin token." },
  INVALID_BATCH: { status: 400, message: "The batch request is malformed." },
  INVALID_QUERY: { status: 400, message: "The query string is malformed." },
  NOT_READY: { status: 503, message: "The database is not reachable." },
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
} as const satisfies Record<string, { status: number; message: string }>;

export type EdgeErrorCode = keyof typeof edgeErrorCodes;

/** An error of the edge's HTTP layer; always safe to show the client. */
export class EdgeError extends Error {
  override readonly name = "EdgeError";
  readonly code: EdgeErrorCode;
  readonly status: number;
  readonly expose = true;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: EdgeErrorCode,
    message?: string,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message ?? edgeErrorCodes[code].message, { cause: options.cause });
    this.code = code;
    this.status = edgeErrorCodes[code].status;
    this.headers = options.headers;
  }
}
