import { joinURL, postJSON } from "../delivery/post-json.js";
import { AuthError } from "../errors.js";
import {
  DEFAULT_EMAIL_TIMEOUT_MS,
  type EmailMessage,
  type EmailTransport,
} from "./email-transport.js";

/** Options of `createResendTransport`. */
export interface ResendTransportOptions {
  /** A Resend API key (`re_...`), sent as a bearer token. */
  readonly apiKey: string;
  /** The API's address; default `https://api.resend.com`. Tests point it at a local server. */
  readonly baseURL?: string | URL | undefined;
  /** The fetch to use; default the global one. */
  readonly fetch?: typeof fetch | undefined;
  /** Milliseconds before the send is abandoned; default 10 000. */
  readonly timeoutMs?: number | undefined;
}

/**
 * Sends through Resend's HTTP API: `POST /emails` with a bearer key and
 * `{from, to: [to], subject, text}`.
 *
 * @example
 * const transport = createResendTransport({ apiKey: process.env.RESEND_API_KEY ?? "" });
 */
export function createResendTransport(options: ResendTransportOptions): EmailTransport {
  const url = joinURL(options.baseURL ?? "https://api.resend.com", "emails");
  return {
    name: "resend",
    async send(message: EmailMessage): Promise<void> {
      try {
        await postJSON({
          provider: "resend",
          url,
          headers: { Authorization: `Bearer ${options.apiKey}` },
          body: {
            from: message.from,
            to: [message.to],
            subject: message.subject,
            text: message.body,
          },
          fetch: options.fetch,
          timeoutMs: options.timeoutMs ?? DEFAULT_EMAIL_TIMEOUT_MS,
        });
      } catch (cause) {
        throw new AuthError("EMAIL_SEND_FAILED", { cause });
      }
    },
  };
}
