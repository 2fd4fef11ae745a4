import { ConfigError } from "@svc/schema";
import { type Env, parseHttpURL, readEnv } from "../delivery/env-values.js";
import {
  type CaptchaProvider,
  type CaptchaVerifier,
  createCaptchaVerifier,
} from "./captcha-verifier.js";

/**
 * The values `SVC_CAPTCHA_PROVIDER` accepts, lower-cased, and the provider
 * each selects: the three names plus the two aliases of Turnstile and of
 * reCAPTCHA.
 */
export const captchaProviderNames: Readonly<Record<string, CaptchaProvider>> = {
  turnstile: "turnstile",
  cloudflare: "turnstile",
  "cloudflare-turnstile": "turnstile",
  hcaptcha: "hcaptcha",
  recaptcha: "recaptcha",
  google: "recaptcha",
  "google-recaptcha": "recaptcha",
};

/** Options of `parseCaptchaConfig`. */
export interface CaptchaConfigOptions {
  /** The fetch the verifier uses; default the global one. */
  readonly fetch?: typeof fetch | undefined;
}

/**
 * Reads the CAPTCHA gate's settings. The gate is on only when both
 * `SVC_CAPTCHA_PROVIDER` and `SVC_CAPTCHA_SECRET` are non-empty; with either
 * one missing this returns undefined and the gate is off, silently, as the
 * spec words it ("active only when both ... are set"). Boot code that wants
 * to warn about a half-configured gate has to check that itself.
 *
 * `SVC_CAPTCHA_PROVIDER` is case-insensitive: `turnstile` (also `cloudflare`,
 * `cloudflare-turnstile`), `hcaptcha`, or `recaptcha` (also `google`,
 * `google-recaptcha`). `SVC_CAPTCHA_VERIFY_URL` (svc's addition, optional)
 * replaces the provider's verification address. Problems throw a
 * `ConfigError` naming the variable; the secret is never echoed.
 *
 * @example
 * const captcha = parseCaptchaConfig(process.env); // undefined: gate off
 */
export function parseCaptchaConfig(
  env: Env,
  options: CaptchaConfigOptions = {},
): CaptchaVerifier | undefined {
  const providerValue = readEnv(env, "SVC_CAPTCHA_PROVIDER");
  const secret = readEnv(env, "SVC_CAPTCHA_SECRET");
  if (providerValue === undefined || secret === undefined) return undefined;
  const provider = Object.hasOwn(captchaProviderNames, providerValue.toLowerCase())
    ? captchaProviderNames[providerValue.toLowerCase()]
    : undefined;
  if (provider === undefined) {
    throw new ConfigError(
      "SVC_CAPTCHA_PROVIDER",
      `must be one of ${Object.keys(captchaProviderNames).join(", ")}`,
    );
  }
  const verifyURL = readEnv(env, "SVC_CAPTCHA_VERIFY_URL");
  return createCaptchaVerifier({
    provider,
    secret,
    verifyURL:
      verifyURL === undefined ? undefined : parseHttpURL("SVC_CAPTCHA_VERIFY_URL", verifyURL),
    fetch: options.fetch,
  });
}
