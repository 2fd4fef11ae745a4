/**
 * Every failure @svc/schema reports, keyed by a stable code. `status` is set
 * for wire errors (sent to API clients); configuration errors have none and
 * stop the boot instead.
 */
export const schemaErrorCodes = {
  INVALID_MANIFEST: { status: undefined, message: "The application manifest is invalid." },
  INVALID_ID: { status: 400, message: "A record id must be 40 lowercase hexadecimal characters." },
  DESTRUCTIVE_MIGRATION: {
    status: undefined,
    message: "The manifest change would lose stored data.",
  },
} as const satisfies Record<string, { status: number | undefined; message: string }>;

export type SchemaErrorCode = keyof typeof schemaErrorCodes;

/** One problem in a manifest, located by a path such as `entities[2].fields[0].type`. */
export interface ManifestIssue {
  path: string;
  /** The same place in the author's terms, e.g. `Todo.title` or `policy "owner"`. */
  where?: string;
  message: string;
}

/** The single error class of @svc/schema; tell cases apart by `code`. */
export class SchemaError extends Error {
  override readonly name = "SchemaError";
  readonly code: SchemaErrorCode;
  /** HTTP status for wire errors; undefined for configuration errors. */
  readonly status: number | undefined;
  /** True when the message is safe to send to an API client. */
  readonly expose: boolean;
  /** The individual problems, for `INVALID_MANIFEST` and `DESTRUCTIVE_MIGRATION`. */
  readonly issues: readonly ManifestIssue[];

  constructor(
    code: SchemaErrorCode,
    options: { message?: string; issues?: readonly ManifestIssue[]; cause?: unknown } = {},
  ) {
    super(options.message ?? schemaErrorCodes[code].message, { cause: options.cause });
    this.code = code;
    this.status = schemaErrorCodes[code].status;
    this.expose = this.status !== undefined;
    this.issues = options.issues ?? [];
  }
}
