import { bearerHeaders, type DeliveryOptions, jsonSender } from "../delivery/post-json.js";
import { type EmailMessage, type EmailTransport, emailSendFailed } from "./email-transport.js";

/** Options of `createWebhookTransport`. */
export interface WebhookTransportOptions extends DeliveryOptions {
  /** The address that receives the POST (`SVC_EMAIL_ENDPOINT`). */
  readonly endpoint: string | URL;
  /** Sent as `Authorization: Bearer <apiKey>` when set; no header otherwise. */
  readonly apiKey?: string | undefined;
}

/**
 * The `webhook` email provider: POSTs `{to, from, subject, body}` as JSON to
 * `endpoint`, for deployments that deliver mail with their own service. Any
 * 2xx counts as delivered.
 *
 * @example
 * const transport = createWebhookTransport({ endpoint: "https://mailer.internal/send" });
 */
export function createWebhookTransport(options: WebhookTransportOptions): EmailTransport {
  const url = new URL(options.endpoint);
  return {
    name: "webhook",
    send: jsonSender(
      { provider: "webhook", url, headers: bearerHeaders(options.apiKey) },
      options,
      (message: EmailMessage) => ({
        to: message.to,
        from: message.from,
        subject: message.subject,
        body: message.body,
      }),
      emailSendFailed,
    ),
  };
}
