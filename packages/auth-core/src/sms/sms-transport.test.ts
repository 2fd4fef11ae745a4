import { closeFakeServers, startFakeServer } from "@svc/tooling/http-server";
import { afterEach, describe, expect, it } from "vitest";
import { postedJSON } from "../../test/provider-requests.js";
import { describeDeliveryFailures } from "../delivery/delivery-failure-contract.js";
import { createSmsWebhookTransport } from "./sms-transport.js";

describe("createSmsWebhookTransport", () => {
  afterEach(closeFakeServers);

  it("POSTs {to, body} to the endpoint, with the key as a bearer token", async () => {
    expect(createSmsWebhookTransport({ endpoint: "https://sms.example" }).name).toBe("sms-webhook");
    const request = await postedJSON((baseURL) =>
      createSmsWebhookTransport({ endpoint: `${baseURL}/sms`, apiKey: "sms_key" }).sendSms({
        to: "+14155550100",
        body: "Your sign-in code is 123456",
      }),
    );
    expect(request.path).toBe("/sms");
    expect(request.headers.authorization).toBe("Bearer sms_key");
    expect(request.json).toEqual({
      to: "+14155550100",
      body: "Your sign-in code is 123456",
    });
  });

  it("sends no Authorization header without a key", async () => {
    const server = await startFakeServer();
    await createSmsWebhookTransport({ endpoint: server.url }).sendSms({
      to: "+1415555010",
      body: "x",
    });
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });
});

describeDeliveryFailures("createSmsWebhookTransport", {
  message: "The text message could not be sent; try again.",
  code: "SMS_SEND_FAILED",
  deliver: ({ baseURL, apiKey, timeoutMs }) =>
    createSmsWebhookTransport({ endpoint: `${baseURL}/sms`, apiKey, timeoutMs }).sendSms({
      to: "+14155550100",
      body: "Your sign-in code is 123456",
    }),
});
