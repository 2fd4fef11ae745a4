import { ConfigError } from "@svc/schema";
import { closeFakeServers, startFakeServer } from "@svc/tooling/http-server";
import { thrownBy } from "@svc/tooling/thrown";
import { afterEach, describe, expect, it } from "vitest";
import { parseSmsConfig } from "./sms-config.js";

afterEach(closeFakeServers);

function configError(env: Record<string, string | undefined>): ConfigError {
  return thrownBy(ConfigError, () => parseSmsConfig(env));
}

describe("parseSmsConfig", () => {
  it.each([[{}], [{ SVC_SMS_ENDPOINT: "" }], [{ SVC_SMS_ENDPOINT: " ", SVC_SMS_API_KEY: "k" }]])(
    "returns no transport for %j",
    (env) => {
      expect(parseSmsConfig(env)).toBeUndefined();
    },
  );

  it("posts to SVC_SMS_ENDPOINT with SVC_SMS_API_KEY as a bearer token", async () => {
    const server = await startFakeServer();
    const sms = parseSmsConfig({
      SVC_SMS_ENDPOINT: `${server.url}/text`,
      SVC_SMS_API_KEY: "sms_k",
    });
    await sms?.sendSms({ to: "+14155550100", body: "Code 123456" });
    expect(sms?.name).toBe("sms-webhook");
    expect(server.requests[0]?.path).toBe("/text");
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sms_k");
  });

  it("sends no Authorization header when the key is empty", async () => {
    const server = await startFakeServer();
    await parseSmsConfig({ SVC_SMS_ENDPOINT: server.url, SVC_SMS_API_KEY: "" })?.sendSms({
      to: "+14155550100",
      body: "x",
    });
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it.each<[Record<string, string>, string]>([
    [{ SVC_SMS_ENDPOINT: "sms.example.com/send" }, "SVC_SMS_ENDPOINT"],
    [{ SVC_SMS_ENDPOINT: "mailto:a@b.c" }, "SVC_SMS_ENDPOINT"],
    [
      { SVC_SMS_ENDPOINT: "https://sms.example/send", SVC_SMS_API_KEY: "two words" },
      "SVC_SMS_API_KEY",
    ],
  ])("refuses %j naming %s", (env, variable) => {
    const error = configError(env);
    expect(error.variable).toBe(variable);
    expect(error.message).not.toContain("two words");
  });
});
