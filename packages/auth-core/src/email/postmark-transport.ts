import { type DeliveryOptions, joinURL, jsonSender } from "../delivery/post-json.js";
import { type EmailMessage, type EmailTransport, emailSendFailed } from "./email-transport.js";

/** Options of `createPostmarkTransport`. */
export interface PostmarkTransportOptions extends DeliveryOptions {
  /** A Postmark server token, sent as `X-Postmark-Server-Token`. */
  readonly apiKey: string;
  /** The API's address; default `https://api.postmarkapp.com`. */
  readonly baseURL?: string | URL | undefined;
}

/**
 * Sends through Postmark's API: `POST /email` with the server token header
 * and `{From, To, Subject, TextBody, MessageStream: "outbound"}`, the
 * default transactional stream.
 *
 * @example
 * const transport = createPostmarkTransport({ apiKey: process.env.POSTMARK_SERVER_TOKEN ?? "" });
 */
export function createPostmarkTransport(options: PostmarkTransportOptions): EmailTransport {
  const url = joinURL(options.baseURL ?? "https://api.postmarkapp.com", "email");
  return {
    name: "postmark",
    send: jsonSender(
      {
        provider: "postmark",
        url,
        headers: { "X-Postmark-Server-Token": options.apiKey, Accept: "application/json" },
      },
      options,
      (message: EmailMessage) => ({
        From: message.from,
        To: message.to,
        Subject: message.subject,
        TextBody: message.body,
        MessageStream: "outbound",
      }),
      emailSendFailed,
    ),
  };
}
