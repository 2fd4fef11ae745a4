import { closeFakeServers, recordingFetch } from "@svc/tooling/http-server";
import { afterEach, describe, expect, it } from "vitest";
import { postedJSON } from "../../test/provider-requests.js";
import { describeDeliveryFailures } from "../delivery/delivery-failure-contract.js";
import { authErrorCodes } from "../errors.js";
import type { EmailMessage } from "./email-transport.js";
import { createPostmarkTransport } from "./postmark-transport.js";

const message: EmailMessage = {
  to: "ada@example.com",
  from: "Example <auth@example.com>",
  subject: "Your sign-in link",
  body: "Sign in with this link: https://app.example.com/x",
};

describe("createPostmarkTransport", () => {
  afterEach(closeFakeServers);

  it("POSTs /email with the server-token header and PascalCase fields on the outbound stream", async () => {
    expect(createPostmarkTransport({ apiKey: "pm-server-token" }).name).toBe("postmark");
    const request = await postedJSON(
      (baseURL) => createPostmarkTransport({ apiKey: "pm-server-token", baseURL }).send(message),
      { status: 200, body: '{"ErrorCode":0,"Message":"OK"}' },
    );
    expect(request.path).toBe("/email");
    expect(request.headers["x-postmark-server-token"]).toBe("pm-server-token");
    expect(request.headers.accept).toBe("application/json");
    expect(request.headers.authorization).toBeUndefined();
    expect(request.json).toEqual({
      From: "Example <auth@example.com>",
      To: "ada@example.com",
      Subject: "Your sign-in link",
      TextBody: "Sign in with this link: https://app.example.com/x",
      MessageStream: "outbound",
    });
  });

  it("talks to https://api.postmarkapp.com by default", async () => {
    const recording = recordingFetch();
    await createPostmarkTransport({ apiKey: "k", fetch: recording.fetch }).send(message);
    expect(recording.urls).toEqual(["https://api.postmarkapp.com/email"]);
  });
});

describeDeliveryFailures("createPostmarkTransport", {
  message: authErrorCodes.EMAIL_SEND_FAILED.message,
  deliver: ({ baseURL, apiKey, timeoutMs }) =>
    createPostmarkTransport({ apiKey, baseURL, timeoutMs }).send(message),
});
