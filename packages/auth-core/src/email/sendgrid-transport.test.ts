import { closeFakeServers, recordingFetch, startFakeServer } from "@svc/tooling/http-server";
import { afterEach, describe, expect, it } from "vitest";
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
    // SendGrid accepts with 202 and an empty body.
    const server = await startFakeServer(() => ({ status: 202 }));
    const transport = createSendGridTransport({ apiKey: "SG.test", baseURL: server.url });
    await transport.send(message);

    expect(transport.name).toBe("sendgrid");
    const [request] = server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/v3/mail/send");
    expect(request?.headers.authorization).toBe("Bearer SG.test");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(request?.body ?? "")).toEqual({
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
    const server = await startFakeServer(() => ({ status: 202 }));
    await createSendGridTransport({ apiKey: "k", baseURL: server.url }).send({ ...message, from });
    expect(JSON.parse(server.requests[0]?.body ?? "").from).toEqual(expected);
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
