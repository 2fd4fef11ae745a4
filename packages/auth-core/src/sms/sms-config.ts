import { checkHeaderToken, type Env, parseHttpURL, readEnv } from "../delivery/env-values.js";
import { createSmsWebhookTransport, type SmsTransport } from "./sms-transport.js";

/** Options of `parseSmsConfig`. */
export interface SmsConfigOptions {
  /** The fetch the transport uses; default the global one. */
  readonly fetch?: typeof fetch | undefined;
}

/**
 * Reads svc's SMS settings (svc's own variables, not in the spec's table):
 * `SVC_SMS_ENDPOINT`, an http(s) URL that receives `{to, body}`, and the
 * optional `SVC_SMS_API_KEY`, sent as a bearer token. Returns undefined when
 * no endpoint is set (phone sign-in then answers `SMS_NOT_CONFIGURED`, or
 * uses the dev inbox in dev mode); a key without an endpoint is ignored.
 * Empty values count as unset. Throws `ConfigError` naming the variable.
 *
 * @example
 * const sms = parseSmsConfig(process.env);
 */
export function parseSmsConfig(env: Env, options: SmsConfigOptions = {}): SmsTransport | undefined {
  const endpoint = readEnv(env, "SVC_SMS_ENDPOINT");
  if (endpoint === undefined) return undefined;
  const url = parseHttpURL("SVC_SMS_ENDPOINT", endpoint);
  const key = readEnv(env, "SVC_SMS_API_KEY");
  const apiKey = key === undefined ? undefined : checkHeaderToken("SVC_SMS_API_KEY", key);
  return createSmsWebhookTransport({ endpoint: url, apiKey, fetch: options.fetch });
}
