/** The wire errors the studio itself raises; store, functions and jobs errors pass through with their own codes. */
export const studioErrorCodes = {
  AUTH_REQUIRED: { status: 401, message: "Sign in to the studio with the admin token." },
  INVALID_TOKEN: { status: 401, message: "The admin token is not valid." },
  CSRF_FAILED: { status: 403, message: "The form did not come from this studio page." },
  INVALID_FORM: { status: 400, message: "The form is malformed." },
  INVALID_JSON: { status: 400, message: "The text is not valid JSON." },
  NOT_FOUND: { status: 404, message: "No such studio page." },
  USER_ENTITY_MISSING: { status: 404, message: "The manifest declares no User entity." },
} as const satisfies Record<string, { status: number; message: string }>;

/** A stable studio error code. */
export type StudioErrorCode = keyof typeof studioErrorCodes;

/** An error of the studio; always safe to show (it becomes the page's error box). */
export class StudioError extends Error {
  override readonly name = "StudioError";
  readonly code: StudioErrorCode;
  readonly status: number;
  readonly expose = true;

  constructor(code: StudioErrorCode, message?: string) {
    super(message ?? studioErrorCodes[code].message);
    this.code = code;
    this.status = studioErrorCodes[code].status;
  }
}
