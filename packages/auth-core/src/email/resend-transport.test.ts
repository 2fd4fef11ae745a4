import { closeFakeServers, recordingFetch, startFakeServer } from "@svc/tooling/http-server";
import { afterEach, describe, expect, it } from "vitest";
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
    const server = await startFakeServer(() => ({ status: 200, body: '{"id":"4ef9a417"}' }));
    const transport = createResendTransport({ apiKey: "re_test_key", baseURL: server.url });
    await transport.send(message);

    expect(transport.name).toBe("resend");
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/emails");
    expect(request?.headers.authorization).toBe("Bearer re_test_key");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(request?.body ?? "")).toEqual({
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
