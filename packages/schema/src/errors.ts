import { type DefinedErrorOptions, defineErrors, type ErrorTable } from "./define-errors.js";

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
} as const satisfies ErrorTable;

export type SchemaErrorCode = keyof typeof schemaErrorCodes;

/** One problem in a manifest, located by a path such as `entities[2].fields[0].type`. */
export interface ManifestIssue {
  path: string;
  /** The same place in the author's terms, e.g. `Todo.title` or `policy "owner"`. */
  where?: string;
  message: string;
}

/**
 * The single error class of @svc/schema, made by `defineErrors` from
 * `schemaErrorCodes`; tell cases apart by `code`. `INVALID_ID` is a wire
 * error; the configuration errors have no status (`expose: false`).
 */
export class SchemaError extends defineErrors("SchemaError", schemaErrorCodes) {
  /** The individual problems, for `INVALID_MANIFEST` and `DESTRUCTIVE_MIGRATION`. */
  readonly issues: readonly ManifestIssue[];

  constructor(
    code: SchemaErrorCode,
    options: DefinedErrorOptions & { readonly issues?: readonly ManifestIssue[] } = {},
  ) {
    super(code, options);
    this.issues = options.issues ?? [];
  }
}
