import { ConfigError } from "@svc/schema";
import {
  checkHeaderToken,
  type Env,
  type EnvValue,
  hasControlCharacter,
  parseHttpURL,
  readEnv,
  readEnvWithOverride,
} from "../delivery/env-values.js";
import { createDevInbox, type DevInbox } from "./dev-inbox.js";
import type { EmailTransport } from "./email-transport.js";
import { parseMailbox } from "./mailbox.js";
import { createPostmarkTransport } from "./postmark-transport.js";
import { createResendTransport } from "./resend-transport.js";
import { createSendGridTransport } from "./sendgrid-transport.js";
import { createWebhookTransport } from "./webhook-transport.js";

/** The email providers `SVC_EMAIL_PROVIDER` accepts (case-insensitive). */
export const emailProviders = ["resend", "sendgrid", "postmark", "webhook"] as const;

/** One of `emailProviders`. */
export type EmailProvider = (typeof emailProviders)[number];

/** How auth mail goes out, as `parseEmailConfig` read it from the environment. */
export interface EmailSettings {
  /** The configured provider; undefined when `SVC_EMAIL_PROVIDER` is unset. */
  readonly transport: EmailTransport | undefined;
  /** The sender address (`SVC_EMAIL_FROM`); set whenever `transport` is. */
  readonly from: string | undefined;
  /** In dev mode without a provider, the inbox that catches the mail; else undefined. */
  readonly devInbox: DevInbox | undefined;
  /** `SVC_AUTH_EMAIL_SUBJECT`: the magic-code subject instead of `Your sign-in code`. */
  readonly magicCodeSubject?: string;
}

/** Options of `parseEmailConfig`. */
export interface EmailConfigOptions {
  /** `SVC_DEV_MODE`: with no provider set, a dev inbox catches the mail. */
  readonly devMode: boolean;
  /** The fetch the transport uses; default the global one. */
  readonly fetch?: typeof fetch | undefined;
  /** Where the dev inbox logs its lines; default `console.log`. */
  readonly log?: ((line: string) => void) | undefined;
}

const MAX_SUBJECT_LENGTH = 200;

function isEmailProvider(value: string): value is EmailProvider {
  return (emailProviders as readonly string[]).includes(value);
}

/**
 * Reads the auth email settings. Each setting is read from its auth-only
 * variable first and from the general one second:
 *
 * - `SVC_AUTH_EMAIL_PROVIDER` / `SVC_EMAIL_PROVIDER`: `resend`, `sendgrid`,
 *   `postmark` or `webhook`, case-insensitive.
 * - `SVC_AUTH_EMAIL_API_KEY` / `SVC_EMAIL_API_KEY`: required by the hosted
 *   providers; for `webhook` it is optional and sent as a bearer token.
 * - `SVC_AUTH_EMAIL_FROM` / `SVC_EMAIL_FROM`: the sender, `auth@example.com`
 *   or `Example <auth@example.com>`; required once a provider is set.
 * - `SVC_AUTH_EMAIL_ENDPOINT` / `SVC_EMAIL_ENDPOINT`: the http(s) address the
 *   `webhook` provider POSTs `{to, from, subject, body}` to; required by it.
 * - `SVC_EMAIL_API_BASE` (svc's addition): replaces a hosted provider's API
 *   address, for a proxy, a regional endpoint or a test server.
 * - `SVC_AUTH_EMAIL_SUBJECT` (svc's addition): the magic-code email's subject.
 *
 * Empty values count as unset. Without a provider, dev mode gets a dev inbox
 * and production gets no transport at all (sends then fail with
 * `EMAIL_SEND_FAILED`). Every problem throws a `ConfigError` naming the
 * variable read; a missing value is reported under the auth-only name when
 * the provider came from `SVC_AUTH_EMAIL_PROVIDER`, under the general name
 * otherwise. Settings a provider does not use are ignored.
 *
 * @example
 * const email = parseEmailConfig(process.env, { devMode: process.env.SVC_DEV_MODE === "true" });
 */
export function parseEmailConfig(env: Env, options: EmailConfigOptions): EmailSettings {
  const provider = readEnvWithOverride(env, "SVC_AUTH_EMAIL_PROVIDER", "SVC_EMAIL_PROVIDER");
  const prefix = provider.name === "SVC_AUTH_EMAIL_PROVIDER" ? "SVC_AUTH_EMAIL_" : "SVC_EMAIL_";
  const read = (setting: string): EnvValue =>
    readEnvWithOverride(
      env,
      `SVC_AUTH_EMAIL_${setting}`,
      `SVC_EMAIL_${setting}`,
      `${prefix}${setting}`,
    );

  const from = read("FROM");
  if (from.value !== undefined && parseMailbox(from.value) === undefined) {
    throw new ConfigError(
      from.name,
      'must be an email address like "auth@example.com" or "Example <auth@example.com>"',
    );
  }
  const subject = readEnv(env, "SVC_AUTH_EMAIL_SUBJECT");
  if (
    subject !== undefined &&
    (hasControlCharacter(subject) || subject.length > MAX_SUBJECT_LENGTH)
  ) {
    throw new ConfigError(
      "SVC_AUTH_EMAIL_SUBJECT",
      `must be one line of at most ${MAX_SUBJECT_LENGTH} characters`,
    );
  }
  const shared = {
    from: from.value,
    ...(subject !== undefined && { magicCodeSubject: subject }),
  };

  if (provider.value === undefined) {
    return {
      transport: undefined,
      devInbox: options.devMode ? createDevInbox({ log: options.log }) : undefined,
      ...shared,
    };
  }

  const providerName = provider.value.toLowerCase();
  if (!isEmailProvider(providerName)) {
    throw new ConfigError(provider.name, `must be one of ${emailProviders.join(", ")}`);
  }
  const apiKey = read("API_KEY");
  if (apiKey.value !== undefined) checkHeaderToken(apiKey.name, apiKey.value);
  const transport = createTransport(providerName, {
    env,
    provider,
    apiKey,
    read,
    fetch: options.fetch,
  });
  if (from.value === undefined) {
    throw new ConfigError(from.name, `must be set when ${provider.name} is ${providerName}`);
  }
  return { transport, devInbox: undefined, ...shared };
}

interface TransportInputs {
  readonly env: Env;
  readonly provider: EnvValue;
  readonly apiKey: EnvValue;
  readonly read: (setting: string) => EnvValue;
  readonly fetch: typeof fetch | undefined;
}

function createTransport(name: EmailProvider, inputs: TransportInputs): EmailTransport {
  const { apiKey, fetch } = inputs;
  if (name === "webhook") {
    const endpoint = inputs.read("ENDPOINT");
    if (endpoint.value === undefined) {
      throw new ConfigError(endpoint.name, `must be set when ${inputs.provider.name} is webhook`);
    }
    return createWebhookTransport({
      endpoint: parseHttpURL(endpoint.name, endpoint.value),
      apiKey: apiKey.value,
      fetch,
    });
  }
  if (apiKey.value === undefined) {
    throw new ConfigError(apiKey.name, `must be set when ${inputs.provider.name} is ${name}`);
  }
  const base = readEnv(inputs.env, "SVC_EMAIL_API_BASE");
  const hosted = {
    apiKey: apiKey.value,
    baseURL: base === undefined ? undefined : parseHttpURL("SVC_EMAIL_API_BASE", base),
    fetch,
  };
  switch (name) {
    case "resend":
      return createResendTransport(hosted);
    case "sendgrid":
      return createSendGridTransport(hosted);
    case "postmark":
      return createPostmarkTransport(hosted);
  }
}
