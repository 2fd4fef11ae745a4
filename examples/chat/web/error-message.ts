import { SvcError } from "@svc/client";

/** One sentence for the page from whatever a call threw. */
export function errorMessage(error: unknown): string {
  if (error instanceof SvcError) {
    return error.code === "NETWORK_ERROR" ? "The server did not answer; try again." : error.message;
  }
  return "Something went wrong; try again.";
}
