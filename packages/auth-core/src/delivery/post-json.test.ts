import { recordingFetch } from "@svc/tooling/http-server";
import { describe, expect, it } from "vitest";
import { joinURL, postJSON } from "./post-json.js";

describe("joinURL", () => {
  it.each([
    ["https://api.resend.com", "emails", "https://api.resend.com/emails"],
    ["https://api.resend.com/", "emails", "https://api.resend.com/emails"],
    ["http://127.0.0.1:9/proxy", "/v3/mail/send", "http://127.0.0.1:9/proxy/v3/mail/send"],
    ["http://127.0.0.1:9/proxy//", "email", "http://127.0.0.1:9/proxy/email"],
  ])("%s + %s = %s", (base, path, expected) => {
    expect(joinURL(base, path).href).toBe(expected);
  });
});

describe("postJSON", () => {
  it.each([200, 201, 202, 204])("resolves on HTTP %i", async (status) => {
    const recording = recordingFetch(status);
    await expect(
      postJSON({
        provider: "p",
        url: new URL("https://example.com/x"),
        headers: {},
        body: {},
        fetch: recording.fetch,
        timeoutMs: 1000,
      }),
    ).resolves.toBeUndefined();
    expect(recording.urls).toEqual(["https://example.com/x"]);
  });

  it("describes a refusal by provider and status only", async () => {
    const error: unknown = await postJSON({
      provider: "resend",
      url: new URL("https://example.com/x"),
      headers: {},
      body: {},
      fetch: recordingFetch(429).fetch,
      timeoutMs: 1000,
    }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("resend answered HTTP 429");
    expect((error as Error).cause).toEqual({ status: 429, responseText: "{}" });
  });
});
