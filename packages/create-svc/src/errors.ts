/**
 * Every failure `scaffold` reports, keyed by a stable code, with the default
 * message. All are local errors (a command-line mistake or a broken
 * installation); none is ever sent over the wire.
 */
export const scaffoldErrorCodes = {
  UNKNOWN_TEMPLATE: { message: "There is no template with that name." },
  INVALID_NAME: { message: "The target directory's name is not a valid npm package name." },
  TARGET_NOT_EMPTY: { message: "The target directory exists and is not empty." },
  TEMPLATES_MISSING: { message: "The templates directory is missing or incomplete." },
  INVALID_CHECKOUT: {
    message: "The directory is not a built checkout of the svc repository.",
  },
  EDGE_UNSUPPORTED: {
    message: "The template needs the svc server and cannot be built as an edge worker.",
  },
} as const satisfies Record<string, { message: string }>;

/** A code of `scaffoldErrorCodes`: `"UNKNOWN_TEMPLATE"`, `"TARGET_NOT_EMPTY"`, … */
export type ScaffoldErrorCode = keyof typeof scaffoldErrorCodes;

/**
 * The single error class of create-svc; tell cases apart by `code`. The
 * message is one sentence meant for the person running the command.
 *
 * @example
 * ```ts
 * try {
 *   await scaffold({ template: "todo", targetDir: "my-app" });
 * } catch (error) {
 *   if (error instanceof ScaffoldError && error.code === "TARGET_NOT_EMPTY") {
 *     console.error("pick another directory");
 *   }
 * }
 * ```
 */
export class ScaffoldError extends Error {
  override readonly name = "ScaffoldError";
  readonly code: ScaffoldErrorCode;

  constructor(code: ScaffoldErrorCode, options: { message?: string; cause?: unknown } = {}) {
    super(options.message ?? scaffoldErrorCodes[code].message, { cause: options.cause });
    this.code = code;
  }
}
