/**
 * Every failure @svc/files reports to a client, keyed by a stable code,
 * with its status and default message.
 */
export const filesErrorCodes = {
  FILE_NOT_FOUND: { status: 404, message: "There is no such file, or you may not see it." },
  FILE_TOO_LARGE: { status: 413, message: "The file is larger than this server accepts." },
  UNSUPPORTED_CONTENT_TYPE: {
    status: 415,
    message: "This content type is not accepted (it must be a valid MIME type the server allows).",
  },
  UPLOAD_EXPIRED: {
    status: 410,
    message: "This upload URL has expired or was already used; start a new upload.",
  },
  UPLOAD_INCOMPLETE: {
    status: 409,
    message: "The uploaded object is missing or does not have the declared size.",
  },
  FILES_NOT_CONFIGURED: { status: 501, message: "File storage is not configured on this server." },
  AUTH_REQUIRED: { status: 401, message: "Files need a signed-in user or the admin token." },
  POLICY_DENIED: { status: 403, message: "Only the file's owner or the admin may do this." },
  INVALID_FILE_REQUEST: { status: 400, message: "The request is not a valid file request." },
} as const satisfies Record<string, { status: number; message: string }>;

/** A stable @svc/files error code. */
export type FilesErrorCode = keyof typeof filesErrorCodes;

/**
 * The single error class of @svc/files; tell cases apart by `code`. Every
 * instance is a wire error (`expose: true`).
 *
 * @example
 * throw new FilesError("FILE_TOO_LARGE");
 */
export class FilesError extends Error {
  override readonly name = "FilesError";
  readonly code: FilesErrorCode;
  readonly status: number;
  readonly expose = true as const;

  /** `message` replaces the table's text with a more precise, client-safe one. */
  constructor(
    code: FilesErrorCode,
    options: { readonly cause?: unknown; readonly message?: string } = {},
  ) {
    super(options.message ?? filesErrorCodes[code].message, { cause: options.cause });
    this.code = code;
    this.status = filesErrorCodes[code].status;
  }
}
