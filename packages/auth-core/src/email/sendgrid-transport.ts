import { joinURL, postJSON } from "../delivery/post-json.js";
import { AuthError } from "../errors.js";
import {
  DEFAULT_EMAIL_TIMEOUT_MS,
  type EmailMessage,
  type EmailTransport,
} from "./email-transport.js";
import { parseMailbox } from "./mailbox.js";

/** Options of `createSendGridTransport`. */
export interface SendGridTransportOptions {
  /** A SendGrid API key (`SG....`), sent as a bearer token. */
  readonly apiKey: string;
  /** The API's address; default `https://api.sendgrid.com`. */
  readonly baseURL?: string | URL | undefined;
  /** The fetch to use; default the global one. */
  readonly fetch?: typeof fetch | undefined;
  /** Milliseconds before the send is abandoned; default 10 000. */
  readonly timeoutMs?: number | undefined;
}

// SendGrid takes the sender as `{email, name}` and refuses `Name <addr>` in
// `email`, so a display name is split out here.
function sender(from: string): { email: string; name?: string } {
  const mailbox = parseMailbox(from);
  if (mailbox === undefined) return { email: from };
  return mailbox.name === undefined
    ? { email: mailbox.address }
    : { email: mailbox.address, name: mailbox.name };
}

/**
 * Sends through SendGrid's v3 Mail Send API: `POST /v3/mail/send` with a
 * bearer key, one personalization for the recipient and a `text/plain`
 * content part. SendGrid answers 202 Accepted on success.
 *
 * @example
 * const transport = createSendGridTransport({ apiKey: process.env.SENDGRID_API_KEY ?? "" });
 */
export function createSendGridTransport(options: SendGridTransportOptions): EmailTransport {
  const url = joinURL(options.baseURL ?? "https://api.sendgrid.com", "v3/mail/send");
  return {
    name: "sendgrid",
    async send(message: EmailMessage): Promise<void> {
      try {
        await postJSON({
          provider: "sendgrid",
          url,
          headers: { Authorization: `Bearer ${options.apiKey}` },
          body: {
            personalizations: [{ to: [{ email: message.to }] }],
            from: sender(message.from),
            subject: message.subject,
            content: [{ type: "text/plain", value: message.body }],
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
