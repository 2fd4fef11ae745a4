import { ConfigError } from "@svc/schema";
import { closeFakeServers, recordingFetch, startFakeServer } from "@svc/tooling/http-server";
import { thrownBy } from "@svc/tooling/thrown";
import { afterEach, describe, expect, it } from "vitest";
import { type EmailSettings, parseEmailConfig } from "./email-config.js";

type Env = Record<string, string | undefined>;

const message = { to: "ada@example.com", subject: "Your sign-in code", body: "Code 123456" };

function parse(env: Env, devMode = false): EmailSettings {
  return parseEmailConfig(env, { devMode, log: () => undefined });
}

function configError(env: Env, devMode = false): ConfigError {
  return thrownBy(ConfigError, () => parse(env, devMode));
}

/** Sends one message through the parsed transport and returns what the fake provider saw. */
async function sendThrough(env: Env, reply = 200) {
  const server = await startFakeServer(() => ({ status: reply, body: "{}" }));
  const settings = parse({ SVC_EMAIL_API_BASE: server.url, ...env });
  await settings.transport?.send({ ...message, from: settings.from ?? "" });
  const [request] = server.requests;
  if (request === undefined) throw new Error("nothing was sent");
  return { settings, request, json: JSON.parse(request.body) as Record<string, unknown>, server };
}

/** Sets each `SVC_EMAIL_<name>` and its `SVC_AUTH_EMAIL_<name>` override, as `[general, auth]`. */
function withOverrides(values: Record<string, [general: string, auth: string]>): Env {
  const env: Env = {};
  for (const [name, [general, auth]] of Object.entries(values)) {
    env[`SVC_EMAIL_${name}`] = general;
    env[`SVC_AUTH_EMAIL_${name}`] = auth;
  }
  return env;
}

afterEach(closeFakeServers);

describe("parseEmailConfig without a provider", () => {
  it("gives dev mode a dev inbox and no transport", () => {
    const settings = parse({}, true);
    expect(settings.transport).toBeUndefined();
    expect(settings.devInbox?.name).toBe("dev-inbox");
    expect(settings.from).toBeUndefined();
  });

  it("gives production neither", () => {
    const settings = parse({ SVC_EMAIL_API_KEY: "ignored" });
    expect(settings).toEqual({ transport: undefined, devInbox: undefined, from: undefined });
  });

  it("makes a new dev inbox per call", () => {
    expect(parse({}, true).devInbox).not.toBe(parse({}, true).devInbox);
  });

  it.each([
    [{ SVC_EMAIL_PROVIDER: "" }],
    [{ SVC_EMAIL_PROVIDER: "  " }],
    [{ SVC_AUTH_EMAIL_PROVIDER: "", SVC_EMAIL_PROVIDER: "" }],
  ])("treats %j as unset", (env) => {
    expect(parse(env, true).transport).toBeUndefined();
    expect(parse(env, true).devInbox).toBeDefined();
  });

  it("still reads and checks the sender", () => {
    expect(parse({ SVC_EMAIL_FROM: "Dev <dev@localhost>" }, true).from).toBe("Dev <dev@localhost>");
    expect(configError({ SVC_EMAIL_FROM: "nope" }, true).variable).toBe("SVC_EMAIL_FROM");
  });
});

describe("parseEmailConfig with a provider", () => {
  it.each([
    ["resend", "/emails"],
    ["RESEND", "/emails"],
    ["SendGrid", "/v3/mail/send"],
    ["postmark", "/email"],
    [" Postmark ", "/email"],
  ])("%j selects the provider whose API path is %s", async (provider, path) => {
    const { settings, request } = await sendThrough({
      SVC_EMAIL_PROVIDER: provider,
      SVC_EMAIL_API_KEY: "key_1",
      SVC_EMAIL_FROM: "auth@example.com",
    });
    expect(settings.transport?.name).toBe(provider.trim().toLowerCase());
    expect(settings.devInbox).toBeUndefined();
    expect(request.path).toBe(path);
  });

  it("uses the provider in dev mode too, without a dev inbox", () => {
    const settings = parse(
      { SVC_EMAIL_PROVIDER: "resend", SVC_EMAIL_API_KEY: "k", SVC_EMAIL_FROM: "a@b.c" },
      true,
    );
    expect(settings.transport?.name).toBe("resend");
    expect(settings.devInbox).toBeUndefined();
  });

  it("talks to the provider's real address unless SVC_EMAIL_API_BASE says otherwise", async () => {
    const recording = recordingFetch();
    const settings = parseEmailConfig(
      { SVC_EMAIL_PROVIDER: "resend", SVC_EMAIL_API_KEY: "k", SVC_EMAIL_FROM: "a@b.c" },
      { devMode: false, fetch: recording.fetch },
    );
    await settings.transport?.send({ ...message, from: "a@b.c" });
    expect(recording.urls).toEqual(["https://api.resend.com/emails"]);
  });

  it("posts the webhook to SVC_EMAIL_ENDPOINT with an optional bearer key", async () => {
    const server = await startFakeServer();
    const settings = parse({
      SVC_EMAIL_PROVIDER: "webhook",
      SVC_EMAIL_ENDPOINT: `${server.url}/mail`,
      SVC_EMAIL_FROM: "auth@example.com",
    });
    await settings.transport?.send({ ...message, from: "auth@example.com" });
    expect(server.requests[0]?.path).toBe("/mail");
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(JSON.parse(server.requests[0]?.body ?? "")).toEqual({
      ...message,
      from: "auth@example.com",
    });
  });

  it("lets every SVC_AUTH_EMAIL_* variable win over its SVC_EMAIL_* counterpart", async () => {
    const { settings, request, json } = await sendThrough(
      withOverrides({
        PROVIDER: ["resend", "postmark"],
        API_KEY: ["general-key", "auth-key"],
        FROM: ["general@example.com", "Auth <auth@example.com>"],
      }),
    );
    expect(settings.transport?.name).toBe("postmark");
    expect(settings.from).toBe("Auth <auth@example.com>");
    expect(request.headers["x-postmark-server-token"]).toBe("auth-key");
    expect(json.From).toBe("Auth <auth@example.com>");
  });

  it("lets SVC_AUTH_EMAIL_ENDPOINT win over SVC_EMAIL_ENDPOINT", async () => {
    const general = await startFakeServer();
    const auth = await startFakeServer();
    const settings = parse({
      SVC_EMAIL_PROVIDER: "webhook",
      SVC_EMAIL_ENDPOINT: general.url,
      SVC_AUTH_EMAIL_ENDPOINT: `${auth.url}/auth-mail`,
      SVC_EMAIL_FROM: "a@b.c",
    });
    await settings.transport?.send({ ...message, from: "a@b.c" });
    expect(general.requests).toHaveLength(0);
    expect(auth.requests[0]?.path).toBe("/auth-mail");
  });

  it("falls back to the general variable when the override is empty", async () => {
    const { settings } = await sendThrough(
      withOverrides({ PROVIDER: ["sendgrid", ""], API_KEY: ["k", ""], FROM: ["a@b.c", ""] }),
    );
    expect(settings.transport?.name).toBe("sendgrid");
    expect(settings.from).toBe("a@b.c");
  });

  it("reads SVC_AUTH_EMAIL_SUBJECT as the magic-code subject", () => {
    expect(parse({ SVC_AUTH_EMAIL_SUBJECT: "Your Acme code" }).magicCodeSubject).toBe(
      "Your Acme code",
    );
    expect(parse({ SVC_AUTH_EMAIL_SUBJECT: "" })).not.toHaveProperty("magicCodeSubject");
  });
});

describe("parseEmailConfig refusals", () => {
  const resend = { SVC_EMAIL_PROVIDER: "resend", SVC_EMAIL_API_KEY: "k", SVC_EMAIL_FROM: "a@b.c" };
  const hook = {
    SVC_EMAIL_PROVIDER: "webhook",
    SVC_EMAIL_ENDPOINT: "https://h.example/m",
    SVC_EMAIL_FROM: "a@b.c",
  };

  it.each<[string, Env, string]>([
    ["an unknown provider", { ...resend, SVC_EMAIL_PROVIDER: "mailgun" }, "SVC_EMAIL_PROVIDER"],
    [
      "an unknown auth provider",
      { ...resend, SVC_AUTH_EMAIL_PROVIDER: "smtp" },
      "SVC_AUTH_EMAIL_PROVIDER",
    ],
    ["resend without a key", { ...resend, SVC_EMAIL_API_KEY: undefined }, "SVC_EMAIL_API_KEY"],
    [
      "sendgrid without a key",
      { ...resend, SVC_EMAIL_PROVIDER: "sendgrid", SVC_EMAIL_API_KEY: "" },
      "SVC_EMAIL_API_KEY",
    ],
    [
      "postmark without a key",
      { ...resend, SVC_EMAIL_PROVIDER: "postmark", SVC_EMAIL_API_KEY: " " },
      "SVC_EMAIL_API_KEY",
    ],
    [
      "an auth provider without a key",
      { SVC_AUTH_EMAIL_PROVIDER: "resend", SVC_EMAIL_FROM: "a@b.c" },
      "SVC_AUTH_EMAIL_API_KEY",
    ],
    ["resend without a sender", { ...resend, SVC_EMAIL_FROM: undefined }, "SVC_EMAIL_FROM"],
    ["webhook without a sender", { ...hook, SVC_EMAIL_FROM: "" }, "SVC_EMAIL_FROM"],
    [
      "an auth provider without a sender",
      { SVC_AUTH_EMAIL_PROVIDER: "resend", SVC_EMAIL_API_KEY: "k" },
      "SVC_AUTH_EMAIL_FROM",
    ],
    ["a sender that is no address", { ...resend, SVC_EMAIL_FROM: "Example" }, "SVC_EMAIL_FROM"],
    [
      "a sender with a line break",
      { ...resend, SVC_EMAIL_FROM: "a@b.c\nBcc: x@y.z" },
      "SVC_EMAIL_FROM",
    ],
    ["a bad auth sender", { ...resend, SVC_AUTH_EMAIL_FROM: "nope" }, "SVC_AUTH_EMAIL_FROM"],
    [
      "webhook without an endpoint",
      { ...hook, SVC_EMAIL_ENDPOINT: undefined },
      "SVC_EMAIL_ENDPOINT",
    ],
    [
      "webhook with an ftp endpoint",
      { ...hook, SVC_EMAIL_ENDPOINT: "ftp://h.example/" },
      "SVC_EMAIL_ENDPOINT",
    ],
    [
      "webhook with a relative endpoint",
      { ...hook, SVC_EMAIL_ENDPOINT: "/mail" },
      "SVC_EMAIL_ENDPOINT",
    ],
    [
      "a bad auth endpoint",
      { ...hook, SVC_AUTH_EMAIL_ENDPOINT: "nope" },
      "SVC_AUTH_EMAIL_ENDPOINT",
    ],
    ["a bad API base", { ...resend, SVC_EMAIL_API_BASE: "api.resend.com" }, "SVC_EMAIL_API_BASE"],
    ["a multi-line subject", { SVC_AUTH_EMAIL_SUBJECT: "a\nb" }, "SVC_AUTH_EMAIL_SUBJECT"],
    ["an over-long subject", { SVC_AUTH_EMAIL_SUBJECT: "x".repeat(201) }, "SVC_AUTH_EMAIL_SUBJECT"],
  ])("%s names %s", (_, env, variable) => {
    for (const devMode of [false, true]) {
      const error = configError(env, devMode);
      expect(error.variable).toBe(variable);
      expect(error.message.startsWith(`${variable}: `)).toBe(true);
    }
  });

  it("lists the accepted providers", () => {
    expect(configError({ SVC_EMAIL_PROVIDER: "mailgun" }).message).toBe(
      "SVC_EMAIL_PROVIDER: must be one of resend, sendgrid, postmark, webhook",
    );
  });

  it("refuses a key that cannot travel in a header, without echoing it", () => {
    const error = configError({ ...resend, SVC_AUTH_EMAIL_API_KEY: "re_SECRET part2" });
    expect(error.variable).toBe("SVC_AUTH_EMAIL_API_KEY");
    expect(error.message).not.toContain("SECRET");
  });

  it("never echoes an endpoint, which may carry a token", () => {
    const error = configError({
      ...hook,
      SVC_EMAIL_ENDPOINT: "https://u:tok3n@h.example/m?key=tok3n",
    });
    expect(error.variable).toBe("SVC_EMAIL_ENDPOINT");
    expect(error.message).not.toContain("tok3n");
  });
});
