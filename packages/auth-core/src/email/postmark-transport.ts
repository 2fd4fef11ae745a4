import { joinURL, postJSON } from "../delivery/post-json.js";
import { AuthError } from "../errors.js";
import {
  DEFAULT_EMAIL_TIMEOUT_MS,
  type EmailMessage,
  type EmailTransport,
} from "./email-transport.js";

/** Options of `createPostmarkTransport`. */
export interface PostmarkTransportOptions {
  /** A Postmark server token, sent as `X-Postmark-Server-Token`. */
  readonly apiKey: string;
  /** The API's address; default `https://api.postmarkapp.com`. */
  readonly baseURL?: string | URL | undefined;
  /** The fetch to use; default the global one. */
  readonly fetch?: typeof fetch | undefined;
  /** Milliseconds before the send is abandoned; default 10 000. */
  readonly timeoutMs?: number | undefined;
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
    async send(message: EmailMessage): Promise<void> {
      try {
        await postJSON({
          provider: "postmark",
          url,
          headers: { "X-Postmark-Server-Token": options.apiKey, Accept: "application/json" },
          body: {
            From: message.from,
            To: message.to,
            Subject: message.subject,
            TextBody: message.body,
            MessageStream: "outbound",
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
