import { bearerHeaders, type DeliveryOptions, jsonSender } from "../delivery/post-json.js";
import { AuthError } from "../errors.js";

/** One text message; `to` is an E.164 phone number such as `+14155550100`. */
export interface SmsMessage {
  readonly to: string;
  readonly body: string;
}

/**
 * Something that delivers an `SmsMessage`: the SMS webhook or the dev inbox.
 * `sendSms` rejects with `AuthError("SMS_SEND_FAILED")` carrying an
 * SMS-worded message when the message could not be handed over.
 */
export interface SmsTransport {
  /** Short name for logs, e.g. `sms-webhook`. */
  readonly name: string;
  sendSms(message: SmsMessage): Promise<void>;
}

/** Options of `createSmsWebhookTransport`. */
export interface SmsWebhookTransportOptions extends DeliveryOptions {
  /** The address that receives the POST (`SVC_SMS_ENDPOINT`). */
  readonly endpoint: string | URL;
  /** Sent as `Authorization: Bearer <apiKey>` when set (`SVC_SMS_API_KEY`). */
  readonly apiKey?: string | undefined;
}

/** The message a failed text send answers with; the code table's wording is about email. */

/**
 * The SMS transport svc has: POSTs `{to, body}` as JSON to `endpoint`, where
 * the deployment's own service (or a Twilio-style relay) sends the text. Any
 * 2xx counts as delivered.
 *
 * @example
 * const sms = createSmsWebhookTransport({ endpoint: "https://sms.internal/send", apiKey: "k" });
 * await sms.sendSms({ to: "+14155550100", body: "Your code is 123456" });
 */
export function createSmsWebhookTransport(options: SmsWebhookTransportOptions): SmsTransport {
  const url = new URL(options.endpoint);
  return {
    name: "sms-webhook",
    sendSms: jsonSender(
      { provider: "sms webhook", url, headers: bearerHeaders(options.apiKey) },
      options,
      (message: SmsMessage) => ({ to: message.to, body: message.body }),
      (cause) => new AuthError("SMS_SEND_FAILED", { cause }),
    ),
  };
}
