import { ConfigError } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { builtinProviderIds } from "./builtin-providers.js";
import { parseOAuthConfig } from "./config.js";

// The environment rules: a provider is enabled by its client id and secret,
// half a pair, a bad URL or an underivable redirect stops the boot with a
// ConfigError naming the variable.

const PUBLIC = "https://app.example";
const input = { state: "s", codeVerifier: "v".repeat(43), nonce: "n" };

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("no ConfigError");
}

describe("parseOAuthConfig", () => {
  it("enables nothing without variables", () => {
    expect(parseOAuthConfig({}, { publicURL: PUBLIC })).toEqual([]);
  });

  it.each(builtinProviderIds)(
    "enables %s from its id and secret with the default redirect",
    (id) => {
      const prefix = `SVC_OAUTH_${id.toUpperCase()}`;
      const [provider, ...rest] = parseOAuthConfig(
        { [`${prefix}_CLIENT_ID`]: "cid", [`${prefix}_CLIENT_SECRET`]: "secret" },
        { publicURL: `${PUBLIC}/` },
      );
      expect(rest).toEqual([]);
      expect(provider?.id).toBe(id);
      const url = provider?.createAuthorizationURL(input);
      expect(url?.searchParams.get("client_id")).toBe("cid");
      expect(url?.searchParams.get("redirect_uri")).toBe(`${PUBLIC}/api/auth/callback/${id}`);
    },
  );

  it("reads the redirect, comma- or space-separated scopes and the Microsoft tenant", () => {
    const providers = parseOAuthConfig({
      SVC_OAUTH_GITHUB_CLIENT_ID: "a",
      SVC_OAUTH_GITHUB_CLIENT_SECRET: "b",
      SVC_OAUTH_GITHUB_REDIRECT: "https://other.example/cb",
      SVC_OAUTH_GITHUB_SCOPES: "read:user, user:email  repo",
      SVC_OAUTH_MICROSOFT_CLIENT_ID: "c",
      SVC_OAUTH_MICROSOFT_CLIENT_SECRET: "d",
      SVC_OAUTH_MICROSOFT_REDIRECT: "https://app.example/ms",
      SVC_OAUTH_MICROSOFT_TENANT: "contoso.onmicrosoft.com",
    });
    expect(providers.map((provider) => provider.id)).toEqual(["github", "microsoft"]);
    const github = providers[0]?.createAuthorizationURL(input);
    expect(github?.searchParams.get("redirect_uri")).toBe("https://other.example/cb");
    expect(github?.searchParams.get("scope")).toBe("read:user user:email repo");
    const microsoft = providers[1]?.createAuthorizationURL(input);
    expect(microsoft?.pathname).toBe("/contoso.onmicrosoft.com/oauth2/v2.0/authorize");
  });

  it("defaults the Microsoft tenant to common", () => {
    const [microsoft] = parseOAuthConfig(
      { SVC_OAUTH_MICROSOFT_CLIENT_ID: "c", SVC_OAUTH_MICROSOFT_CLIENT_SECRET: "d" },
      { publicURL: PUBLIC },
    );
    expect(microsoft?.createAuthorizationURL(input).pathname).toBe("/common/oauth2/v2.0/authorize");
  });

  it.each([
    [{ SVC_OAUTH_GOOGLE_CLIENT_ID: "a" }, "SVC_OAUTH_GOOGLE_CLIENT_SECRET"],
    [{ SVC_OAUTH_GOOGLE_CLIENT_SECRET: "a" }, "SVC_OAUTH_GOOGLE_CLIENT_ID"],
    [
      {
        SVC_OAUTH_GOOGLE_CLIENT_ID: "a",
        SVC_OAUTH_GOOGLE_CLIENT_SECRET: "b",
        SVC_OAUTH_GOOGLE_REDIRECT: "not a url",
      },
      "SVC_OAUTH_GOOGLE_REDIRECT",
    ],
    [
      {
        SVC_OAUTH_GOOGLE_CLIENT_ID: "a",
        SVC_OAUTH_GOOGLE_CLIENT_SECRET: "b",
        SVC_OAUTH_GOOGLE_REDIRECT: "javascript:alert(1)",
      },
      "SVC_OAUTH_GOOGLE_REDIRECT",
    ],
    [
      {
        SVC_OAUTH_GOOGLE_CLIENT_ID: "a",
        SVC_OAUTH_GOOGLE_CLIENT_SECRET: "b",
        SVC_OAUTH_GOOGLE_SCOPES: " , ",
      },
      "SVC_OAUTH_GOOGLE_SCOPES",
    ],
    [
      {
        SVC_OAUTH_MICROSOFT_CLIENT_ID: "a",
        SVC_OAUTH_MICROSOFT_CLIENT_SECRET: "b",
        SVC_OAUTH_MICROSOFT_TENANT: "../x",
      },
      "SVC_OAUTH_MICROSOFT_TENANT",
    ],
    [
      { SVC_OIDC_OKTA_CLIENT_ID: "a", SVC_OIDC_OKTA_ISSUER: "https://okta.example" },
      "SVC_OIDC_OKTA_CLIENT_SECRET",
    ],
    [{ SVC_OIDC_OKTA_CLIENT_ID: "a", SVC_OIDC_OKTA_CLIENT_SECRET: "b" }, "SVC_OIDC_OKTA_ISSUER"],
    [
      {
        SVC_OIDC_OKTA_CLIENT_ID: "a",
        SVC_OIDC_OKTA_CLIENT_SECRET: "b",
        SVC_OIDC_OKTA_ISSUER: "okta.example",
      },
      "SVC_OIDC_OKTA_ISSUER",
    ],
    [{ SVC_OIDC_GITHUB_ISSUER: "https://gh.example" }, "SVC_OIDC_GITHUB_ISSUER"],
  ])("refuses %o naming %s", (env, variable) => {
    const error = configError(() => parseOAuthConfig(env, { publicURL: PUBLIC }));
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable}: `)).toBe(true);
    expect(error.message).not.toContain("\n");
  });

  it("needs a public URL to derive a redirect", () => {
    const env = { SVC_OAUTH_GITLAB_CLIENT_ID: "a", SVC_OAUTH_GITLAB_CLIENT_SECRET: "b" };
    expect(configError(() => parseOAuthConfig(env)).variable).toBe("SVC_OAUTH_GITLAB_REDIRECT");
    expect(configError(() => parseOAuthConfig(env, { publicURL: "nope" })).variable).toBe(
      "SVC_PUBLIC_URL",
    );
    expect(
      parseOAuthConfig({ ...env, SVC_OAUTH_GITLAB_REDIRECT: "https://a.example/cb" }),
    ).toHaveLength(1);
  });

  it("treats empty values as unset", () => {
    expect(
      parseOAuthConfig(
        { SVC_OAUTH_GITHUB_CLIENT_ID: "", SVC_OAUTH_GITHUB_CLIENT_SECRET: " " },
        { publicURL: PUBLIC },
      ),
    ).toEqual([]);
  });

  it("builds any number of OIDC providers with lower-cased ids", () => {
    const providers = parseOAuthConfig(
      {
        SVC_OIDC_OKTA_ISSUER: "https://okta.example",
        SVC_OIDC_OKTA_CLIENT_ID: "a",
        SVC_OIDC_OKTA_CLIENT_SECRET: "b",
        SVC_OIDC_CORP_SSO_ISSUER: "https://sso.corp.example",
        SVC_OIDC_CORP_SSO_CLIENT_ID: "c",
        SVC_OIDC_CORP_SSO_CLIENT_SECRET: "d",
        SVC_OIDC_CORP_SSO_SCOPES: "openid,email",
        // Only an issuer: disabled, like a built-in without credentials.
        SVC_OIDC_LATER_ISSUER: "https://later.example",
      },
      { publicURL: PUBLIC },
    );
    expect(providers.map((provider) => [provider.id, provider.name])).toEqual([
      ["corp_sso", "corp_sso"],
      ["okta", "okta"],
    ]);
  });
});
