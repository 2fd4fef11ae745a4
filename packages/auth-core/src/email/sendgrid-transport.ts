import { bearerHeaders, type DeliveryOptions, joinURL, jsonSender } from "../delivery/post-json.js";
import { type EmailMessage, type EmailTransport, emailSendFailed } from "./email-transport.js";
import { parseMailbox } from "./mailbox.js";

/** Options of `createSendGridTransport`. */
export interface SendGridTransportOptions extends DeliveryOptions {
  /** A SendGrid API key (`SG....`), sent as a bearer token. */
  readonly apiKey: string;
  /** The API's address; default `https://api.sendgrid.com`. */
  readonly baseURL?: string | URL | undefined;
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
    send: jsonSender(
      { provider: "sendgrid", url, headers: bearerHeaders(options.apiKey) },
      options,
      (message: EmailMessage) => ({
        personalizations: [{ to: [{ email: message.to }] }],
        from: sender(message.from),
        subject: message.subject,
        content: [{ type: "text/plain", value: message.body }],
      }),
      emailSendFailed,
    ),
  };
}
