import { commonError, type DefinedErrorOptions, defineErrors, type ErrorTable } from "@svc/schema";

/** The wire errors the studio itself raises; store, functions and jobs errors pass through with their own codes. */
export const studioErrorCodes = {
  ...commonError("AUTH_REQUIRED", "Sign in to the studio with the admin token."),
  ...commonError("INVALID_TOKEN", "The admin token is not valid."),
  CSRF_FAILED: { status: 403, message: "The form did not come from this studio page." },
  INVALID_FORM: { status: 400, message: "The form is malformed." },
  ...commonError("INVALID_JSON", "The text is not valid JSON."),
  ...commonError("NOT_FOUND", "No such studio page."),
  USER_ENTITY_MISSING: { status: 404, message: "The manifest declares no User entity." },
} as const satisfies ErrorTable;

/** A stable studio error code. */
export type StudioErrorCode = keyof typeof studioErrorCodes;

/** An error of the studio; always safe to show (it becomes the page's error box). */
export class StudioError extends defineErrors("StudioError", studioErrorCodes) {
  constructor(code: StudioErrorCode, message?: string | DefinedErrorOptions) {
    super(code, typeof message === "object" ? message : { message });
  }
}
