import { postJSON } from "../delivery/post-json.js";
import { AuthError } from "../errors.js";
import {
  DEFAULT_EMAIL_TIMEOUT_MS,
  type EmailMessage,
  type EmailTransport,
} from "./email-transport.js";

/** Options of `createWebhookTransport`. */
export interface WebhookTransportOptions {
  /** The address that receives the POST (`SVC_EMAIL_ENDPOINT`). */
  readonly endpoint: string | URL;
  /** Sent as `Authorization: Bearer <apiKey>` when set; no header otherwise. */
  readonly apiKey?: string | undefined;
  /** The fetch to use; default the global one. Tests pass their own. */
  readonly fetch?: typeof fetch | undefined;
  /** Milliseconds before the send is abandoned; default 10 000. */
  readonly timeoutMs?: number | undefined;
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
  const headers: Record<string, string> =
    options.apiKey === undefined ? {} : { Authorization: `Bearer ${options.apiKey}` };
  return {
    name: "webhook",
    async send(message: EmailMessage): Promise<void> {
      try {
        await postJSON({
          provider: "webhook",
          url,
          headers,
          body: {
            to: message.to,
            from: message.from,
            subject: message.subject,
            body: message.body,
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
