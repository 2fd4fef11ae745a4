import { bearerHeaders, type DeliveryOptions, joinURL, jsonSender } from "../delivery/post-json.js";
import { type EmailMessage, type EmailTransport, emailSendFailed } from "./email-transport.js";

/** Options of `createResendTransport`. */
export interface ResendTransportOptions extends DeliveryOptions {
  /** A Resend API key (`re_...`), sent as a bearer token. */
  readonly apiKey: string;
  /** The API's address; default `https://api.resend.com`. Tests point it at a local server. */
  readonly baseURL?: string | URL | undefined;
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
    send: jsonSender(
      { provider: "resend", url, headers: bearerHeaders(options.apiKey) },
      options,
      (message: EmailMessage) => ({
        from: message.from,
        to: [message.to],
        subject: message.subject,
        text: message.body,
      }),
      emailSendFailed,
    ),
  };
}
