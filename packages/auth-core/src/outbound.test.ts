import { describe, expect, it } from "vitest";
import * as outbound from "./outbound.js";

// Pins the public surface the package index re-exports, so a rename or a
// dropped export shows up here rather than in a consumer.
describe("outbound barrel", () => {
  it("exports exactly these values", () => {
    expect(Object.keys(outbound).sort()).toEqual([
      "DEFAULT_EMAIL_TIMEOUT_MS",
      "captchaProviderNames",
      "captchaTokenLimits",
      "captchaVerifyURLs",
      "createCaptchaVerifier",
      "createDevInbox",
      "createPostmarkTransport",
      "createResendTransport",
      "createSendGridTransport",
      "createSmsWebhookTransport",
      "createWebhookTransport",
      "emailProviders",
      "magicCodeEmail",
      "magicLinkEmail",
      "parseCaptchaConfig",
      "parseEmailConfig",
      "parseSmsConfig",
      "passwordResetEmail",
      "verificationEmail",
    ]);
  });
});
