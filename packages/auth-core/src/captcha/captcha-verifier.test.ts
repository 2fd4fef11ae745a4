import {
  closeFakeServers,
  type FakeReply,
  recordingFetch,
  refusedURL,
  startFakeServer,
} from "@svc/tooling/http-server";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CaptchaProvider,
  type CaptchaVerifier,
  captchaVerifyURLs,
  createCaptchaVerifier,
} from "./captcha-verifier.js";

const SECRET = "0xCAPTCHA_SECRET_do_not_leak";

afterEach(closeFakeServers);

async function verifierAgainst(
  reply: FakeReply | (() => FakeReply),
  options: { provider?: CaptchaProvider; timeoutMs?: number } = {},
) {
  const server = await startFakeServer(typeof reply === "function" ? reply : () => reply);
  const verifier: CaptchaVerifier = createCaptchaVerifier({
    provider: options.provider ?? "turnstile",
    secret: SECRET,
    verifyURL: `${server.url}/siteverify`,
    timeoutMs: options.timeoutMs,
  });
  return { server, verifier };
}

const ok = (body: unknown): FakeReply => ({ status: 200, body: JSON.stringify(body) });

describe("createCaptchaVerifier", () => {
  it("POSTs secret, response and remoteip as a form and passes on success: true", async () => {
    const { server, verifier } = await verifierAgainst(ok({ success: true, "error-codes": [] }));
    await expect(verifier.verify("tok-123", "203.0.113.7")).resolves.toBe(true);

    const [request] = server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/siteverify");
    expect(request?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(request?.body))).toEqual({
      secret: SECRET,
      response: "tok-123",
      remoteip: "203.0.113.7",
    });
  });

  it.each([undefined, ""])("leaves remoteip out when the peer address is %j", async (remoteIp) => {
    const { server, verifier } = await verifierAgainst(ok({ success: true }));
    await expect(verifier.verify("tok", remoteIp)).resolves.toBe(true);
    expect(new URLSearchParams(server.requests[0]?.body).has("remoteip")).toBe(false);
  });

  it.each<[string, FakeReply]>([
    ["success: false", ok({ success: false, "error-codes": ["invalid-input-response"] })],
    ["success as a string", ok({ success: "true" })],
    ["no success field", ok({ hostname: "example.com" })],
    ["a JSON array", ok([true])],
    ["text instead of JSON", { status: 200, body: "<html>challenge</html>" }],
    ["an empty body", { status: 200, body: "" }],
    ["HTTP 500 with success: true", { status: 500, body: '{"success":true}' }],
    ["HTTP 403", { status: 403, body: "{}" }],
  ])("fails closed on %s", async (_, reply) => {
    const { server, verifier } = await verifierAgainst(reply);
    await expect(verifier.verify("tok", "203.0.113.7")).resolves.toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it("does not follow a redirect, so the secret is not re-sent elsewhere", async () => {
    const elsewhere = await startFakeServer(() => ok({ success: true }));
    const { verifier } = await verifierAgainst({
      status: 307,
      headers: { Location: `${elsewhere.url}/siteverify` },
    });
    await expect(verifier.verify("tok", undefined)).resolves.toBe(false);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("fails closed when the provider does not answer in time", async () => {
    // The server never answers, so only the timeout can settle this. (Whether
    // the request reached the server before the abort depends on the load.)
    const { verifier } = await verifierAgainst("hang", { timeoutMs: 50 });
    await expect(verifier.verify("tok", undefined)).resolves.toBe(false);
  });

  it("fails closed when the provider is unreachable", async () => {
    const verifier = createCaptchaVerifier({
      provider: "hcaptcha",
      secret: SECRET,
      verifyURL: await refusedURL(),
    });
    await expect(verifier.verify("tok", undefined)).resolves.toBe(false);
  });

  it.each<[string, unknown]>([
    ["missing", undefined],
    ["null", null],
    ["a number", 12345],
    ["an array", ["tok"]],
    ["an object", { token: "tok" }],
    ["empty", ""],
    ["2049 characters", "a".repeat(2049)],
  ])("refuses a token that is %s without asking the provider", async (_, token) => {
    const { server, verifier } = await verifierAgainst(ok({ success: true }));
    await expect(verifier.verify(token, "203.0.113.7")).resolves.toBe(false);
    expect(server.requests).toHaveLength(0);
  });

  it("asks about a Turnstile token of exactly 2048 characters", async () => {
    const { server, verifier } = await verifierAgainst(ok({ success: true }));
    await expect(verifier.verify("a".repeat(2048), undefined)).resolves.toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  // hCaptcha tokens longer than 2048 characters occur in the wild; a
  // Turnstile-sized cap would lock those users out.
  it.each<CaptchaProvider>(["hcaptcha", "recaptcha"])(
    "asks %s about tokens past 2048 characters, up to its own bound",
    async (provider) => {
      const { server, verifier } = await verifierAgainst(ok({ success: true }), { provider });
      await expect(verifier.verify("a".repeat(4096), undefined)).resolves.toBe(true);
      await expect(verifier.verify("a".repeat(32_769), undefined)).resolves.toBe(false);
      expect(server.requests).toHaveLength(1);
    },
  );

  it.each(Object.entries(captchaVerifyURLs))(
    "uses %s's documented address by default",
    async (provider, url) => {
      const recording = recordingFetch();
      const verifier = createCaptchaVerifier({
        provider: provider as CaptchaProvider,
        secret: SECRET,
        fetch: recording.fetch,
      });
      expect(verifier.provider).toBe(provider);
      await verifier.verify("tok", undefined);
      expect(recording.urls).toEqual([url]);
    },
  );

  it("never rejects, so no message can carry the secret", async () => {
    const throwing: typeof fetch = async () => {
      throw new Error(`boom ${SECRET}`);
    };
    const verifier = createCaptchaVerifier({
      provider: "recaptcha",
      secret: SECRET,
      fetch: throwing,
    });
    await expect(verifier.verify("tok", "203.0.113.7")).resolves.toBe(false);
  });
});
