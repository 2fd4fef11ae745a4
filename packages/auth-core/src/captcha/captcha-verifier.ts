import { z } from "zod";

/** The CAPTCHA services svc verifies against. */
export type CaptchaProvider = "turnstile" | "hcaptcha" | "recaptcha";

/** Each provider's documented verification address. */
export const captchaVerifyURLs: Readonly<Record<CaptchaProvider, string>> = {
  turnstile: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
  hcaptcha: "https://api.hcaptcha.com/siteverify",
  recaptcha: "https://www.google.com/recaptcha/api/siteverify",
};

/**
 * The longest token each provider is asked about; longer ones fail without a
 * call. Cloudflare documents 2048 characters for Turnstile. hCaptcha and
 * reCAPTCHA document no maximum and real hCaptcha tokens exceed 2048 (and at
 * times 4000) characters, so theirs is a generous bound that only stops
 * someone posting megabytes to make the server forward them.
 */
export const captchaTokenLimits: Readonly<Record<CaptchaProvider, number>> = {
  turnstile: 2048,
  hcaptcha: 32_768,
  recaptcha: 32_768,
};

/**
 * Checks a client's CAPTCHA token with the provider. `verify` resolves true
 * only when the provider said `success: true`; every other outcome,
 * including the provider being unreachable, is false (fail closed). It never
 * rejects, so callers answer `CAPTCHA_FAILED` without learning why.
 */
export interface CaptchaVerifier {
  readonly provider: CaptchaProvider;
  /** `token` is the request body's `captchaToken` as received; `remoteIp` the peer address. */
  verify(token: unknown, remoteIp: string | undefined): Promise<boolean>;
}

/** Options of `createCaptchaVerifier`. */
export interface CaptchaVerifierOptions {
  readonly provider: CaptchaProvider;
  /** The provider's secret key (`SVC_CAPTCHA_SECRET`). */
  readonly secret: string;
  /** Replaces the provider's verification address (`captchaVerifyURLs`). */
  readonly verifyURL?: string | URL | undefined;
  /** The fetch to use; default the global one. */
  readonly fetch?: typeof fetch | undefined;
  /** Milliseconds to wait for the provider before failing; default 5000. */
  readonly timeoutMs?: number | undefined;
  /** Longest token sent to the provider; default `captchaTokenLimits[provider]`. */
  readonly maxTokenLength?: number | undefined;
}

const DEFAULT_TIMEOUT_MS = 5000;

// All three answer `{success: boolean, "error-codes"?: [...], ...}`; only
// `success` decides, and a non-boolean one is a parse failure.
const verifyAnswer = z.object({ success: z.boolean() });

/**
 * Creates the verifier for one provider. The token, the secret and the peer
 * address (when known) are POSTed as a form, which all three accept.
 * Redirects are refused so the secret is never re-sent to another host.
 *
 * @example
 * const captcha = createCaptchaVerifier({ provider: "turnstile", secret: process.env.SVC_CAPTCHA_SECRET ?? "" });
 * if (!(await captcha.verify(body.captchaToken, req.socket.remoteAddress))) throw new AuthError("CAPTCHA_FAILED");
 */
export function createCaptchaVerifier(options: CaptchaVerifierOptions): CaptchaVerifier {
  const url = new URL(options.verifyURL ?? captchaVerifyURLs[options.provider]);
  const maxTokenLength = options.maxTokenLength ?? captchaTokenLimits[options.provider];
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  async function ask(token: string, remoteIp: string | undefined): Promise<boolean> {
    const form = new URLSearchParams({ secret: options.secret, response: token });
    if (remoteIp !== undefined && remoteIp !== "") form.set("remoteip", remoteIp);
    const fetchImpl = options.fetch ?? globalThis.fetch;
    const response = await fetchImpl(url, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: form,
      redirect: "error",
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      await response.arrayBuffer().catch(() => undefined);
      return false;
    }
    const answer = verifyAnswer.safeParse(await response.json());
    return answer.success && answer.data.success;
  }

  return {
    provider: options.provider,
    async verify(token: unknown, remoteIp: string | undefined): Promise<boolean> {
      if (typeof token !== "string" || token === "" || token.length > maxTokenLength) return false;
      try {
        return await ask(token, remoteIp);
      } catch {
        // Unreachable, slow or unreadable: the provider has not said yes.
        return false;
      }
    },
  };
}
