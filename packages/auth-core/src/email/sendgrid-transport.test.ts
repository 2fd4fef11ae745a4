import { closeFakeServers, recordingFetch } from "@svc/tooling/http-server";
import { afterEach, describe, expect, it } from "vitest";
import { postedJSON } from "../../test/provider-requests.js";
import { describeDeliveryFailures } from "../delivery/delivery-failure-contract.js";
import { authErrorCodes } from "../errors.js";
import type { EmailMessage } from "./email-transport.js";
import { createSendGridTransport } from "./sendgrid-transport.js";

const message: EmailMessage = {
  to: "ada@example.com",
  from: "auth@example.com",
  subject: "Verify your email address",
  body: "Your verification code is 654321",
};

describe("createSendGridTransport", () => {
  afterEach(closeFakeServers);

  it("POSTs /v3/mail/send with a bearer key and one text/plain personalization", async () => {
    expect(createSendGridTransport({ apiKey: "SG.test" }).name).toBe("sendgrid");
    const request = await postedJSON(
      (baseURL) => createSendGridTransport({ apiKey: "SG.test", baseURL }).send(message),
      // SendGrid accepts with 202 and an empty body.
      { status: 202 },
    );
    expect(request.path).toBe("/v3/mail/send");
    expect(request.headers.authorization).toBe("Bearer SG.test");
    expect(request.json).toEqual({
      personalizations: [{ to: [{ email: "ada@example.com" }] }],
      from: { email: "auth@example.com" },
      subject: "Verify your email address",
      content: [{ type: "text/plain", value: "Your verification code is 654321" }],
    });
  });

  it.each([
    ["Example <auth@example.com>", { email: "auth@example.com", name: "Example" }],
    ['"Example, Inc." <auth@example.com>', { email: "auth@example.com", name: "Example, Inc." }],
    ["auth@example.com", { email: "auth@example.com" }],
  ])("sends the sender %s as %j", async (from, expected) => {
    const request = await postedJSON(
      (baseURL) => createSendGridTransport({ apiKey: "k", baseURL }).send({ ...message, from }),
      { status: 202 },
    );
    expect((request.json as { from: unknown }).from).toEqual(expected);
  });

  it("talks to https://api.sendgrid.com by default", async () => {
    const recording = recordingFetch(202);
    await createSendGridTransport({ apiKey: "k", fetch: recording.fetch }).send(message);
    expect(recording.urls).toEqual(["https://api.sendgrid.com/v3/mail/send"]);
  });
});

describeDeliveryFailures("createSendGridTransport", {
  message: authErrorCodes.EMAIL_SEND_FAILED.message,
  deliver: ({ baseURL, apiKey, timeoutMs }) =>
    createSendGridTransport({ apiKey, baseURL, timeoutMs }).send(message),
});
