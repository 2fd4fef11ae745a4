import { describe, expect, expectTypeOf, it } from "vitest";
import { createSmsWebhookTransport, type SmsTransport } from "../sms/sms-transport.js";
import { createDevInbox } from "./dev-inbox.js";
import { DEFAULT_EMAIL_TIMEOUT_MS, type EmailTransport } from "./email-transport.js";
import { createPostmarkTransport } from "./postmark-transport.js";
import { createResendTransport } from "./resend-transport.js";
import { createSendGridTransport } from "./sendgrid-transport.js";
import { createWebhookTransport } from "./webhook-transport.js";

describe("EmailTransport", () => {
  it("waits 10 seconds for a provider by default", () => {
    expect(DEFAULT_EMAIL_TIMEOUT_MS).toBe(10_000);
  });

  it("is what every transport factory and the dev inbox return", () => {
    expectTypeOf(createResendTransport).returns.toEqualTypeOf<EmailTransport>();
    expectTypeOf(createSendGridTransport).returns.toEqualTypeOf<EmailTransport>();
    expectTypeOf(createPostmarkTransport).returns.toEqualTypeOf<EmailTransport>();
    expectTypeOf(createWebhookTransport).returns.toEqualTypeOf<EmailTransport>();
    expectTypeOf(createSmsWebhookTransport).returns.toEqualTypeOf<SmsTransport>();
    expectTypeOf(createDevInbox).returns.toExtend<EmailTransport>();
  });

  it.each([
    ["resend", createResendTransport({ apiKey: "k" })],
    ["sendgrid", createSendGridTransport({ apiKey: "k" })],
    ["postmark", createPostmarkTransport({ apiKey: "k" })],
    ["webhook", createWebhookTransport({ endpoint: "https://hook.example/" })],
  ])("names the %s transport for logs", (name, transport) => {
    expect(transport.name).toBe(name);
  });
});
