import { z } from "zod";
import { FunctionsError } from "./errors.js";

/** The most recipients one `ctx.email.send` takes. */
export const MAX_EMAIL_RECIPIENTS = 10;
/** The longest subject, in characters. */
export const MAX_EMAIL_SUBJECT_LENGTH = 200;
/** The longest plain-text body, in characters (about 100 KB). */
export const MAX_EMAIL_TEXT_LENGTH = 100_000;

/** What a function passes to `ctx.email.send`. */
export interface EmailInput {
  /** One address, or a list of at most ten; each recipient gets a message of their own. */
  readonly to: string | readonly string[];
  /** One line of at most 200 characters. */
  readonly subject: string;
  /** The plain-text body, at most 100 000 characters. */
  readonly text: string;
}

/** A validated email, as the runner hands it to an `EmailSender`. */
export interface OutgoingEmail {
  /** One to ten distinct addresses, each checked. */
  readonly to: readonly string[];
  readonly subject: string;
  readonly text: string;
}

/**
 * What delivers the emails functions send: the app wires its email
 * transport in (in svc's server, the `SVC_EMAIL_*` provider, or the dev
 * inbox in dev mode); @svc/functions knows no provider. `send` resolves once
 * every recipient's message was accepted and rejects otherwise; the runner
 * turns a rejection into `EMAIL_SEND_FAILED` (500) and keeps the original
 * as `cause`, so the sender's message never reaches a client.
 *
 * @example
 * ```ts
 * const email: EmailSender = {
 *   async send(message) {
 *     for (const to of message.to) await mailer.send({ to, subject: message.subject, body: message.text });
 *   },
 * };
 * ```
 */
export interface EmailSender {
  send(message: OutgoingEmail): Promise<void>;
}

/** `ctx.email` of a mutation or an action. */
export interface EmailContext {
  /**
   * Sends a plain-text email. The input is checked at once: an invalid
   * address, a subject or address with a line break or other control
   * character, or a value past the limits rejects with `INVALID_EMAIL`
   * (400). In an action the email goes out before the promise resolves and
   * a transport failure rejects with `EMAIL_SEND_FAILED` (500). In a
   * mutation the email waits for the transaction: it goes out only after the
   * commit (a mutation that throws sends nothing), and a transport failure
   * then cannot undo the committed writes, so it is logged, not returned.
   * Use an action when the caller must learn that the send failed.
   *
   * @example
   * ```ts
   * await ctx.email.send({ to: invite.email, subject: "You are invited", text: `Join: ${link}` });
   * ```
   */
  send(input: EmailInput): Promise<void>;
}

// Loose on purpose (like auth-core's mailbox check): one @, no whitespace,
// no control characters and none of the characters that delimit mailboxes
// in a header, so an address cannot smuggle in another header or recipient.
const ADDRESS = /^[^\s@<>",;:()[\]\\]+@[^\s@<>",;:()[\]\\]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const CONTROL = /[\u0000-\u001f\u007f]/;

const address = z
  .string()
  .max(254, "an address is at most 254 characters")
  .refine(
    (value) => !CONTROL.test(value),
    "an address may not contain line breaks or control characters",
  )
  .refine((value) => ADDRESS.test(value), "is not an email address");

const emailInput = z.strictObject({
  to: z.union([
    address.transform((value) => [value]),
    z
      .array(address)
      .min(1, "needs at least one recipient")
      .max(MAX_EMAIL_RECIPIENTS, `takes at most ${MAX_EMAIL_RECIPIENTS} recipients`)
      .transform((list) => [...new Set(list)]),
  ]),
  subject: z
    .string()
    .min(1, "may not be empty")
    .max(MAX_EMAIL_SUBJECT_LENGTH, `is at most ${MAX_EMAIL_SUBJECT_LENGTH} characters`)
    .refine((value) => !CONTROL.test(value), "must be one line without control characters"),
  text: z.string().max(MAX_EMAIL_TEXT_LENGTH, `is at most ${MAX_EMAIL_TEXT_LENGTH} characters`),
});

/**
 * Checks what a function passed to `ctx.email.send`; throws
 * `FunctionsError("INVALID_EMAIL")` (400) naming the field at fault.
 */
export function checkEmail(input: unknown): OutgoingEmail {
  const parsed = emailInput.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.filter((part) => typeof part === "string").join(".") || "input";
  throw new FunctionsError("INVALID_EMAIL", {
    message: `ctx.email.send: ${field} ${issue?.message ?? "is invalid"}.`,
  });
}

async function deliver(sender: EmailSender | undefined, message: OutgoingEmail): Promise<void> {
  if (sender === undefined) {
    throw new FunctionsError("EMAIL_SEND_FAILED", {
      cause: new Error("no email sender is configured (SVC_EMAIL_PROVIDER)"),
    });
  }
  try {
    await sender.send(message);
  } catch (cause) {
    throw new FunctionsError("EMAIL_SEND_FAILED", { cause });
  }
}

/** `ctx.email` of an action: each send is delivered before it resolves. */
export function immediateEmail(sender: EmailSender | undefined): EmailContext {
  return Object.freeze({
    send: async (input: EmailInput) => deliver(sender, checkEmail(input)),
  });
}

/** A mutation's `ctx.email` and the queue it fills until the commit. */
export interface EmailOutbox {
  readonly context: EmailContext;
  /**
   * Delivers the queued emails in order, after the commit. A failure is
   * passed to `onError` (`EMAIL_SEND_FAILED` with its cause) and the rest
   * still go out; it never rejects.
   */
  flush(onError: (error: FunctionsError) => void): Promise<void>;
}

/** Creates the outbox of one mutation run: sends are checked now and held until `flush`. */
export function createEmailOutbox(sender: EmailSender | undefined): EmailOutbox {
  const queued: OutgoingEmail[] = [];
  return {
    context: Object.freeze({
      send: async (input: EmailInput) => {
        queued.push(checkEmail(input));
      },
    }),
    async flush(onError) {
      for (const message of queued.splice(0)) {
        try {
          await deliver(sender, message);
        } catch (error) {
          onError(error as FunctionsError);
        }
      }
    },
  };
}

/** `ctx.email` where no commit can be awaited (a delete hook): every send rejects. */
export const unavailableEmail: EmailContext = Object.freeze({
  send: async () => {
    throw new FunctionsError("EMAIL_UNAVAILABLE");
  },
});
