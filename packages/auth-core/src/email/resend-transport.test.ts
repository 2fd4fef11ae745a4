import { closeFakeServers, recordingFetch, startFakeServer } from "@svc/tooling/http-server";
import { afterEach, describe, expect, it } from "vitest";
import { postedJSON } from "../../test/provider-requests.js";
import { describeDeliveryFailures } from "../delivery/delivery-failure-contract.js";
import { authErrorCodes } from "../errors.js";
import type { EmailMessage } from "./email-transport.js";
import { createResendTransport } from "./resend-transport.js";

const message: EmailMessage = {
  to: "ada@example.com",
  from: "Example <auth@example.com>",
  subject: "Your sign-in code",
  body: "Your sign-in code is 123456\n\nIt expires in 10 minutes.",
};

describe("createResendTransport", () => {
  afterEach(closeFakeServers);

  it("POSTs /emails with a bearer key and {from, to: [to], subject, text}", async () => {
    expect(createResendTransport({ apiKey: "re_test_key" }).name).toBe("resend");
    const request = await postedJSON(
      (baseURL) => createResendTransport({ apiKey: "re_test_key", baseURL }).send(message),
      { status: 200, body: '{"id":"4ef9a417"}' },
    );
    expect(request.path).toBe("/emails");
    expect(request.headers.authorization).toBe("Bearer re_test_key");
    expect(request.json).toEqual({
      from: "Example <auth@example.com>",
      to: ["ada@example.com"],
      subject: "Your sign-in code",
      text: "Your sign-in code is 123456\n\nIt expires in 10 minutes.",
    });
  });

  it("keeps the path prefix of a base URL", async () => {
    const server = await startFakeServer();
    await createResendTransport({ apiKey: "k", baseURL: `${server.url}/proxy/resend/` }).send(
      message,
    );
    expect(server.requests[0]?.path).toBe("/proxy/resend/emails");
  });

  it("talks to https://api.resend.com by default", async () => {
    const recording = recordingFetch();
    await createResendTransport({ apiKey: "k", fetch: recording.fetch }).send(message);
    expect(recording.urls).toEqual(["https://api.resend.com/emails"]);
  });
});

describeDeliveryFailures("createResendTransport", {
  message: authErrorCodes.EMAIL_SEND_FAILED.message,
  deliver: ({ baseURL, apiKey, timeoutMs }) =>
    createResendTransport({ apiKey, baseURL, timeoutMs }).send(message),
});
