// Everything @svc/auth-core sends out or checks with a third party: email
// transports and templates, the SMS webhook, the dev inbox and the CAPTCHA
// verifier, with the parsers that build them from the environment.
export {
  type CaptchaConfigOptions,
  captchaProviderNames,
  parseCaptchaConfig,
} from "./captcha/captcha-config.js";
export {
  type CaptchaProvider,
  type CaptchaVerifier,
  type CaptchaVerifierOptions,
  captchaTokenLimits,
  captchaVerifyURLs,
  createCaptchaVerifier,
} from "./captcha/captcha-verifier.js";
export {
  createDevInbox,
  type DevInbox,
  type DevInboxOptions,
  type DevMessage,
} from "./email/dev-inbox.js";
export {
  type EmailConfigOptions,
  type EmailProvider,
  type EmailSettings,
  emailProviders,
  parseEmailConfig,
} from "./email/email-config.js";
export {
  type EmailContent,
  type MagicCodeEmailOptions,
  magicCodeEmail,
  magicLinkEmail,
  passwordResetEmail,
  verificationEmail,
} from "./email/email-templates.js";
export {
  DEFAULT_EMAIL_TIMEOUT_MS,
  type EmailMessage,
  type EmailTransport,
} from "./email/email-transport.js";
export {
  createPostmarkTransport,
  type PostmarkTransportOptions,
} from "./email/postmark-transport.js";
export { createResendTransport, type ResendTransportOptions } from "./email/resend-transport.js";
export {
  createSendGridTransport,
  type SendGridTransportOptions,
} from "./email/sendgrid-transport.js";
export { createWebhookTransport, type WebhookTransportOptions } from "./email/webhook-transport.js";
export { parseSmsConfig, type SmsConfigOptions } from "./sms/sms-config.js";
export {
  createSmsWebhookTransport,
  type SmsMessage,
  type SmsTransport,
  type SmsWebhookTransportOptions,
} from "./sms/sms-transport.js";
