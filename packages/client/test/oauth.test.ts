import { describe, expect, it } from "vitest";
import { clientOf } from "./server.js";
import { serverForTests } from "./server-for-tests.js";

const server = serverForTests({
  env: {
    SVC_PUBLIC_URL: "http://localhost:4321",
    SVC_OAUTH_GITHUB_CLIENT_ID: "gh-client",
    SVC_OAUTH_GITHUB_CLIENT_SECRET: "gh-secret",
  },
});

describe("OAuth against the real server", () => {
  it("providers() lists the configured provider", async () => {
    expect(await clientOf(server()).auth.providers()).toEqual([
      { id: "github", name: "GitHub", type: "oauth", login_path: "/api/auth/login/github" },
    ]);
  });

  it("oauthLoginURL is a URL the server starts the handshake at", async () => {
    const url = clientOf(server()).auth.oauthLoginURL("github", {
      callback: "http://localhost:5173/done",
      response: "token",
    });
    const response = await fetch(url, { redirect: "manual" });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") ?? "");
    expect(location.origin).toBe("https://github.com");
    expect(location.searchParams.get("client_id")).toBe("gh-client");
  });

  it("a callback on an untrusted origin is refused before any redirect", async () => {
    const url = clientOf(server()).auth.oauthLoginURL("github", { callback: "https://evil.test/" });
    const response = await fetch(url, { redirect: "manual" });
    expect(response.status).toBe(400);
  });
});
