import { closeFakeServers, startFakeServer } from "@svc/tooling/http-server";
import { afterEach, describe, expect, it } from "vitest";
import { postedJSON } from "../../test/provider-requests.js";
import { describeDeliveryFailures } from "../delivery/delivery-failure-contract.js";
import { authErrorCodes } from "../errors.js";
import type { EmailMessage } from "./email-transport.js";
import { createWebhookTransport } from "./webhook-transport.js";

const message: EmailMessage = {
  to: "ada@example.com",
  from: "auth@example.com",
  subject: "Your sign-in code",
  body: "Your sign-in code is 123456",
};

describe("createWebhookTransport", () => {
  afterEach(closeFakeServers);

  it("POSTs {to, from, subject, body} to the endpoint, with the key as a bearer token", async () => {
    expect(createWebhookTransport({ endpoint: "https://h.example/hook" }).name).toBe("webhook");
    const request = await postedJSON(
      (baseURL) =>
        createWebhookTransport({
          endpoint: `${baseURL}/hooks/mail?tenant=a`,
          apiKey: "whk_123",
        }).send(message),
      { status: 204 },
    );
    expect(request.path).toBe("/hooks/mail?tenant=a");
    expect(request.headers.authorization).toBe("Bearer whk_123");
    expect(request.json).toEqual({
      to: "ada@example.com",
      from: "auth@example.com",
      subject: "Your sign-in code",
      body: "Your sign-in code is 123456",
    });
  });

  it("sends no Authorization header without a key", async () => {
    const server = await startFakeServer();
    await createWebhookTransport({ endpoint: new URL("/hook", server.url) }).send(message);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });
});

describeDeliveryFailures("createWebhookTransport", {
  message: authErrorCodes.EMAIL_SEND_FAILED.message,
  deliver: ({ baseURL, apiKey, timeoutMs }) =>
    createWebhookTransport({ endpoint: `${baseURL}/hook`, apiKey, timeoutMs }).send(message),
});
