import { describe, expect, it } from "vitest";
import {
  buildOAuthLoginURL,
  createClient,
  errorFromResponse,
  generateId,
  isValidId,
  parseOAuthRedirect,
  SvcError,
} from "../src/index.js";

describe("generateId", () => {
  it("makes distinct 40-character lowercase hex ids", () => {
    const ids = new Set(Array.from({ length: 1000 }, () => generateId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{40}$/);
    expect(isValidId(generateId())).toBe(true);
    expect(isValidId("ABC")).toBe(false);
  });
});

describe("errorFromResponse", () => {
  it("keeps the envelope's code, message, status and extra fields", () => {
    const error = errorFromResponse(429, {
      error: { code: "RATE_LIMITED", message: "Wait." },
      retry_after_secs: 42,
    });
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: "RATE_LIMITED", message: "Wait.", status: 429 });
    expect(error.details).toEqual({ retry_after_secs: 42 });
    expect(error.retryAfterSecs).toBe(42);
  });

  it("names a body that is not an envelope by its status", () => {
    expect(errorFromResponse(502, undefined)).toMatchObject({ code: "HTTP_502", status: 502 });
  });
});

describe("network failures", () => {
  it("become NETWORK_ERROR with status 0", async () => {
    // Port 9 on loopback (discard) is closed on test machines: the connection is refused.
    const client = createClient({ url: "http://127.0.0.1:9" });
    const error = await client.fn("anything").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: "NETWORK_ERROR", status: 0 });
  });

  it("an aborted call is ABORTED", async () => {
    const client = createClient({
      url: "http://svc.test",
      fetch: (_input, init) =>
        new Promise((_resolve, reject) => {
          const signal = init.signal;
          if (signal?.aborted) reject(signal.reason);
          signal?.addEventListener("abort", () => reject(signal.reason));
        }),
    });
    const controller = new AbortController();
    const call = client.fn("slow", {}, { signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: "ABORTED", status: 0 });
  });

  it("a 2xx answer that is not JSON is INVALID_RESPONSE", async () => {
    const client = createClient({
      url: "http://svc.test",
      fetch: async () => new Response("<html>", { status: 200 }),
    });
    await expect(client.auth.me()).rejects.toMatchObject({ code: "INVALID_RESPONSE" });
  });
});

describe("OAuth helpers", () => {
  it("builds the login URL without a request", () => {
    const client = createClient({
      url: "http://localhost:4321/",
      fetch: () => Promise.reject(new Error("no request expected")),
    });
    const url = new URL(
      client.auth.oauthLoginURL("github", {
        callback: "http://localhost:5173/done?x=1",
        response: "token",
      }),
    );
    expect(url.origin + url.pathname).toBe("http://localhost:4321/api/auth/login/github");
    expect(url.searchParams.get("callback")).toBe("http://localhost:5173/done?x=1");
    expect(url.searchParams.get("response")).toBe("token");
    expect(buildOAuthLoginURL("https://a.test", "apple", { callback: "/" })).toBe(
      "https://a.test/api/auth/login/apple?callback=%2F",
    );
  });

  it.each([
    [
      "a token fragment",
      "http://localhost:5173/done#token=svc_abc&user_id=u1&expires_at=1900000000",
      { type: "signed-in", token: "svc_abc", userId: "u1", expiresAt: 1900000000 },
    ],
    [
      "a second-factor fragment",
      "http://localhost:5173/done#second_factor_required=true&challenge=ch1&methods=totp%2Cbackup_code",
      { type: "second-factor", challenge: "ch1", methods: ["totp", "backup_code"] },
    ],
    [
      "an error query",
      "http://localhost:5173/done?error=PROVIDER_DENIED",
      { type: "error", code: "PROVIDER_DENIED" },
    ],
    [
      "a magic link's challenge",
      "http://localhost:5173/done?svc_challenge=ch2",
      { type: "second-factor", challenge: "ch2", methods: [] },
    ],
    ["a cookie-mode return", "http://localhost:5173/done", { type: "none" }],
  ])("parses %s", (_case, href, outcome) => {
    expect(parseOAuthRedirect(href)).toEqual(outcome);
  });

  it("completeOAuthRedirect stores the token and fires onAuthChange", async () => {
    const client = createClient({ url: "http://svc.test" });
    const changes: unknown[] = [];
    client.onAuthChange((change) => changes.push(change));
    const outcome = await client.auth.completeOAuthRedirect(
      "http://localhost:5173/#token=svc_t&user_id=u9&expires_at=5",
    );
    expect(outcome.type).toBe("signed-in");
    expect(await client.token()).toBe("svc_t");
    expect(changes).toEqual([{ reason: "sign-in", token: "svc_t", userId: "u9" }]);
    const failed = await client.auth.completeOAuthRedirect("http://localhost:5173/?error=X");
    expect(failed).toEqual({ type: "error", code: "X" });
    expect(await client.token()).toBe("svc_t");
  });
});

describe("requests", () => {
  it("send the stored token as a bearer, JSON bodies and the credentials option", async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    const client = createClient({
      url: "http://svc.test/",
      token: "svc_abc",
      credentials: "include",
      fetch: async (url, init) => {
        seen.push({ url, init });
        return new Response(JSON.stringify({ ok: true }), { status: 200 });
      },
    });
    expect(await client.fn("ping", { n: 1 })).toEqual({ ok: true });
    expect(seen[0]?.url).toBe("http://svc.test/api/fn/ping");
    expect(seen[0]?.init).toMatchObject({
      method: "POST",
      body: '{"n":1}',
      credentials: "include",
      headers: { authorization: "Bearer svc_abc", "content-type": "application/json" },
    });
  });
});

describe("token storage", () => {
  it("reads an async storage and writes through it", async () => {
    const values = new Map<string, string>([["svc_token", "svc_saved"]]);
    const storage = {
      get: async (key: string) => values.get(key),
      set: async (key: string, value: string) => {
        values.set(key, value);
      },
      remove: async (key: string) => {
        values.delete(key);
      },
    };
    const client = createClient({ url: "http://svc.test", storage });
    expect(await client.token()).toBe("svc_saved");
    await client.setToken("svc_new");
    expect(values.get("svc_token")).toBe("svc_new");
    await client.setToken(null);
    expect(values.has("svc_token")).toBe(false);
  });

  it("the token option replaces what storage holds", async () => {
    const client = createClient({ url: "http://svc.test", token: "pk.key_x.y" });
    expect(await client.token()).toBe("pk.key_x.y");
  });
});
