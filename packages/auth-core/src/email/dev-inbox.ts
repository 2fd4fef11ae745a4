import type { SmsMessage, SmsTransport } from "../sms/sms-transport.js";
import type { EmailMessage, EmailTransport } from "./email-transport.js";

/** One message the dev inbox caught. `from` and `subject` exist for email only. */
export interface DevMessage {
  readonly channel: "email" | "sms";
  readonly to: string;
  readonly from?: string;
  readonly subject?: string;
  readonly body: string;
  /** When it was sent, as an ISO 8601 string. */
  readonly sent_at: string;
}

/** Options of `createDevInbox`. */
export interface DevInboxOptions {
  /** Receives one line per message; default `console.log`. */
  readonly log?: ((line: string) => void) | undefined;
  /** How many messages are kept; older ones are dropped. Default 100. */
  readonly limit?: number | undefined;
  /** The clock, in epoch milliseconds; default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/**
 * The development stand-in for email and SMS: instead of delivering, it keeps
 * the latest messages in memory and logs one line each, so a developer can
 * read a sign-in code from the terminal. It never fails.
 */
export interface DevInbox extends EmailTransport, SmsTransport {
  readonly name: "dev-inbox";
  /** The kept messages, newest first. */
  messages(): readonly DevMessage[];
  /** Forgets every kept message. */
  clear(): void;
}

const DEFAULT_LIMIT = 100;
const MAX_PREVIEW = 200;

// Recipient and subject may come from a request; control characters are
// replaced so a crafted address cannot forge extra log lines.
function oneLine(text: string): string {
  return text.replace(/\p{Cc}/gu, " ");
}

function firstLine(body: string): string {
  const line = body.split(/\r?\n/).find((candidate) => candidate.trim() !== "") ?? "";
  return oneLine(line.trim()).slice(0, MAX_PREVIEW);
}

/**
 * Creates an in-memory dev inbox. Its log lines include the message's first
 * line, which is where the templates put the code: that is the point in
 * development, and why the inbox is only wired up in dev mode.
 *
 * @example
 * const inbox = createDevInbox({ limit: 10 });
 * await inbox.send({ to: "a@example.com", from: "svc@localhost", subject: "Hi", body: "Code 123456" });
 * // logs: svc: dev inbox: email to a@example.com "Hi": Code 123456
 * inbox.messages()[0]?.body; // "Code 123456"
 */
export function createDevInbox(options: DevInboxOptions = {}): DevInbox {
  const limit = options.limit ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError("createDevInbox: limit must be a positive integer");
  }
  const log = options.log ?? ((line: string) => console.log(line));
  const now = options.now ?? Date.now;
  let kept: DevMessage[] = [];

  function keep(message: DevMessage): void {
    kept = [message, ...kept].slice(0, limit);
  }

  return {
    name: "dev-inbox",
    async send(message: EmailMessage): Promise<void> {
      keep({
        channel: "email",
        to: message.to,
        from: message.from,
        subject: message.subject,
        body: message.body,
        sent_at: new Date(now()).toISOString(),
      });
      log(
        `svc: dev inbox: email to ${oneLine(message.to)} ${JSON.stringify(message.subject)}: ${firstLine(message.body)}`,
      );
    },
    async sendSms(message: SmsMessage): Promise<void> {
      keep({
        channel: "sms",
        to: message.to,
        body: message.body,
        sent_at: new Date(now()).toISOString(),
      });
      log(`svc: dev inbox: sms to ${oneLine(message.to)}: ${firstLine(message.body)}`);
    },
    messages(): readonly DevMessage[] {
      return [...kept];
    },
    clear(): void {
      kept = [];
    },
  };
}
