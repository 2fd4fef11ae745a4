import {
  type DevInbox,
  type EmailSettings,
  type EmailTransport,
  parseEmailConfig,
} from "@svc/auth-core";
import type { EmailSender } from "@svc/functions";

/** The sender the dev inbox shows when `SVC_EMAIL_FROM` is unset. */
const DEV_FROM = "svc <no-reply@localhost>";

/**
 * Reads the application's email settings for `ctx.email` from the general
 * `SVC_EMAIL_*` variables only: the `SVC_AUTH_EMAIL_*` overrides apply to
 * auth flows alone, so they are left out before auth-core's parser reads
 * the rest (same providers, same checks, same `ConfigError`s).
 */
export function parseAppEmailConfig(
  env: Readonly<Record<string, string | undefined>>,
  options: { readonly devMode: boolean },
): EmailSettings {
  const general = Object.fromEntries(
    Object.entries(env).filter(([name]) => !name.startsWith("SVC_AUTH_EMAIL_")),
  );
  return parseEmailConfig(general, { devMode: options.devMode });
}

/**
 * The `EmailSender` of the function runner: each recipient gets a message
 * of their own (nobody sees the other addresses, and the `webhook`
 * provider's `{to, from, subject, body}` keeps one `to`), in order; the
 * first failure stops the rest. In dev mode without a provider the dev
 * inbox catches the mail (pass auth's, so `/api/__dev__/inbox` lists both);
 * with neither, undefined: sends fail with `EMAIL_SEND_FAILED`.
 */
export function createAppEmailSender(
  settings: EmailSettings,
  authDevInbox: DevInbox | undefined,
): EmailSender | undefined {
  const transport: EmailTransport | undefined =
    settings.transport ?? authDevInbox ?? settings.devInbox;
  if (transport === undefined) return undefined;
  const from = settings.from ?? DEV_FROM;
  return {
    async send(message) {
      for (const to of message.to) {
        await transport.send({ to, from, subject: message.subject, body: message.text });
      }
    },
  };
}
