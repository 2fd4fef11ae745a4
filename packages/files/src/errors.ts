import { commonError, defineErrors, type ErrorTable } from "@svc/schema";

/**
 * Every failure @svc/files reports to a client, keyed by a stable code,
 * with its status and default message.
 */
export const filesErrorCodes = {
  ...commonError("AUTH_REQUIRED", "Files need a signed-in user or the admin token."),
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
  ...commonError("POLICY_DENIED", "Only the file's owner or the admin may do this."),
  INVALID_FILE_REQUEST: { status: 400, message: "The request is not a valid file request." },
} as const satisfies ErrorTable;

/** A stable @svc/files error code. */
export type FilesErrorCode = keyof typeof filesErrorCodes;

/**
 * The single error class of @svc/files; tell cases apart by `code`. Every
 * instance is a wire error (`expose: true`); `message` at the throw
 * replaces the table's text with a more precise, client-safe one.
 *
 * @example
 * throw new FilesError("FILE_TOO_LARGE");
 */
export class FilesError extends defineErrors("FilesError", filesErrorCodes) {}
