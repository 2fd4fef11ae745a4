import { ConfigError } from "@svc/schema";
import { closeFakeServers, recordingFetch, startFakeServer } from "@svc/tooling/http-server";
import { thrownBy } from "@svc/tooling/thrown";
import { afterEach, describe, expect, it } from "vitest";
import { parseCaptchaConfig } from "./captcha-config.js";

afterEach(closeFakeServers);

const SECRET = "0xSECRET_value_1234";

function configError(env: Record<string, string | undefined>): ConfigError {
  return thrownBy(ConfigError, () => parseCaptchaConfig(env));
}

describe("parseCaptchaConfig", () => {
  it.each<[Record<string, string | undefined>]>([
    [{}],
    [{ SVC_CAPTCHA_PROVIDER: "turnstile" }],
    [{ SVC_CAPTCHA_SECRET: SECRET }],
    [{ SVC_CAPTCHA_PROVIDER: "turnstile", SVC_CAPTCHA_SECRET: "" }],
    [{ SVC_CAPTCHA_PROVIDER: "", SVC_CAPTCHA_SECRET: SECRET }],
    [{ SVC_CAPTCHA_PROVIDER: "  ", SVC_CAPTCHA_SECRET: SECRET }],
    // The gate is off before the provider is read, so even a bad value is ignored.
    [{ SVC_CAPTCHA_PROVIDER: "mystery" }],
  ])("leaves the gate off for %j", (env) => {
    expect(parseCaptchaConfig(env)).toBeUndefined();
  });

  it.each([
    ["turnstile", "turnstile"],
    ["cloudflare", "turnstile"],
    ["cloudflare-turnstile", "turnstile"],
    ["Cloudflare-Turnstile", "turnstile"],
    ["hcaptcha", "hcaptcha"],
    ["hCaptcha", "hcaptcha"],
    ["recaptcha", "recaptcha"],
    ["reCAPTCHA", "recaptcha"],
    ["google", "recaptcha"],
    ["Google-ReCaptcha", "recaptcha"],
    [" TURNSTILE ", "turnstile"],
  ])("maps %j to %s", (value, provider) => {
    expect(
      parseCaptchaConfig({ SVC_CAPTCHA_PROVIDER: value, SVC_CAPTCHA_SECRET: SECRET })?.provider,
    ).toBe(provider);
  });

  it.each(["mystery", "constructor", "__proto__", "toString", "cloudflare turnstile"])(
    "refuses the provider %j, listing the accepted values",
    (value) => {
      const error = configError({ SVC_CAPTCHA_PROVIDER: value, SVC_CAPTCHA_SECRET: SECRET });
      expect(error.variable).toBe("SVC_CAPTCHA_PROVIDER");
      expect(error.message).toBe(
        "SVC_CAPTCHA_PROVIDER: must be one of turnstile, cloudflare, cloudflare-turnstile, hcaptcha, recaptcha, google, google-recaptcha",
      );
      expect(error.message).not.toContain(SECRET);
    },
  );

  it("verifies against SVC_CAPTCHA_VERIFY_URL with the configured secret", async () => {
    const server = await startFakeServer(() => ({ status: 200, body: '{"success":true}' }));
    const verifier = parseCaptchaConfig({
      SVC_CAPTCHA_PROVIDER: "hcaptcha",
      SVC_CAPTCHA_SECRET: SECRET,
      SVC_CAPTCHA_VERIFY_URL: `${server.url}/verify`,
    });
    await expect(verifier?.verify("tok", "198.51.100.2")).resolves.toBe(true);
    expect(server.requests[0]?.path).toBe("/verify");
    expect(new URLSearchParams(server.requests[0]?.body).get("secret")).toBe(SECRET);
  });

  it("uses the provider's own address and the given fetch by default", async () => {
    const recording = recordingFetch();
    const verifier = parseCaptchaConfig(
      { SVC_CAPTCHA_PROVIDER: "google", SVC_CAPTCHA_SECRET: SECRET, SVC_CAPTCHA_VERIFY_URL: "" },
      { fetch: recording.fetch },
    );
    await verifier?.verify("tok", undefined);
    expect(recording.urls).toEqual(["https://www.google.com/recaptcha/api/siteverify"]);
  });

  it.each(["not a url", "ftp://verify.example/", "https://user:pw@verify.example/"])(
    "refuses SVC_CAPTCHA_VERIFY_URL=%j",
    (value) => {
      const error = configError({
        SVC_CAPTCHA_PROVIDER: "turnstile",
        SVC_CAPTCHA_SECRET: SECRET,
        SVC_CAPTCHA_VERIFY_URL: value,
      });
      expect(error.variable).toBe("SVC_CAPTCHA_VERIFY_URL");
      expect(error.message).not.toContain(SECRET);
    },
  );
});
