import { DEFAULT_DELIVERY_TIMEOUT_MS } from "../delivery/post-json.js";
import { AuthError } from "../errors.js";

/**
 * One plain-text email. `from` is an address or `Name <address>`; the
 * transports send `body` as the text part and no HTML part.
 */
export interface EmailMessage {
  readonly to: string;
  readonly from: string;
  readonly subject: string;
  readonly body: string;
}

/**
 * Something that delivers an `EmailMessage`: a hosted provider, a webhook or
 * the dev inbox. `send` resolves once the provider accepted the message and
 * rejects with `AuthError("EMAIL_SEND_FAILED")` otherwise; the rejection's
 * `cause` holds the details for the log, its message stays generic.
 *
 * @example
 * const transport: EmailTransport = createResendTransport({ apiKey });
 * await transport.send({ to: "a@example.com", from: "auth@example.com", subject: "Hi", body: "Hello" });
 */
export interface EmailTransport {
  /** Short provider name for logs, e.g. `resend`. */
  readonly name: string;
  send(message: EmailMessage): Promise<void>;
}

/** How long a transport waits for the provider before giving up: 10 seconds. */
export const DEFAULT_EMAIL_TIMEOUT_MS = DEFAULT_DELIVERY_TIMEOUT_MS;

/** The rejection of a failed email send: generic wording, the details in `cause`. */
export function emailSendFailed(cause: unknown): AuthError {
  return new AuthError("EMAIL_SEND_FAILED", { cause });
}
