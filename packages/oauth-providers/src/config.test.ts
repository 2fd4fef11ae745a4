import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@svc/schema";
import { thrownBy } from "@svc/tooling/thrown";
import { afterEach, describe, expect, it } from "vitest";
import { builtinProviderIds } from "./builtin-providers.js";
import { parseOAuthConfig } from "./config.js";

// The environment rules: a provider is enabled by its client id and secret
// (half a pair disables it with a warning); a bad URL or an underivable
// redirect stops the boot with a ConfigError naming the variable.

const PUBLIC = "https://app.example";
const input = { state: "s", codeVerifier: "v".repeat(43), nonce: "n" };

function configError(run: () => unknown): ConfigError {
  return thrownBy(ConfigError, run);
}

describe("parseOAuthConfig", () => {
  it("enables nothing without variables", () => {
    expect(parseOAuthConfig({}, { publicURL: PUBLIC })).toEqual([]);
  });

  it.each(builtinProviderIds.filter((id) => id !== "apple"))(
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
      // TikTok calls the client id `client_key`.
      expect(url?.searchParams.get(id === "tiktok" ? "client_key" : "client_id")).toBe("cid");
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

  // Regression: half a pair stopped the boot, while the spec says such a
  // provider "is disabled and not listed by /api/auth/providers".
  it.each([
    [{ SVC_OAUTH_GOOGLE_CLIENT_ID: "a" }, "SVC_OAUTH_GOOGLE_CLIENT_SECRET", "google"],
    [{ SVC_OAUTH_GOOGLE_CLIENT_SECRET: "a" }, "SVC_OAUTH_GOOGLE_CLIENT_ID", "google"],
    [
      { SVC_OIDC_OKTA_CLIENT_ID: "a", SVC_OIDC_OKTA_ISSUER: "https://okta.example" },
      "SVC_OIDC_OKTA_CLIENT_SECRET",
      "okta",
    ],
  ])("disables %o, warning once that %s is unset", (env, variable, id) => {
    const warnings: string[] = [];
    const providers = parseOAuthConfig(
      { ...env, SVC_OAUTH_GITHUB_CLIENT_ID: "g", SVC_OAUTH_GITHUB_CLIENT_SECRET: "s" },
      { publicURL: PUBLIC, onWarning: (message) => warnings.push(message) },
    );
    expect(providers.map((provider) => provider.id)).toEqual(["github"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^${variable} is unset while `));
    expect(warnings[0]).toContain(`the ${id} provider is disabled`);
    expect(warnings[0]).not.toContain("\n");
    // The value of the variable that is set is never repeated.
    expect(warnings[0]).not.toContain('"a"');
  });

  it("warns of nothing when a provider has neither id nor secret", () => {
    const warnings: string[] = [];
    parseOAuthConfig({}, { publicURL: PUBLIC, onWarning: (message) => warnings.push(message) });
    expect(warnings).toEqual([]);
  });

  it.each([
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

describe("parseOAuthConfig: Apple", () => {
  const ec = (namedCurve: string) => generateKeyPairSync("ec", { namedCurve }).privateKey;
  const appleKey = ec("prime256v1").export({ type: "pkcs8", format: "pem" }).toString();
  const apple = {
    SVC_OAUTH_APPLE_CLIENT_ID: "com.example.web",
    SVC_OAUTH_APPLE_TEAM_ID: "TEAM123456",
    SVC_OAUTH_APPLE_KEY_ID: "KEY1234567",
    SVC_OAUTH_APPLE_PRIVATE_KEY: appleKey,
  };
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true });
  });

  it("is enabled by its four variables, answers by form_post, with the default redirect", () => {
    const [provider, ...rest] = parseOAuthConfig(apple, { publicURL: PUBLIC });
    expect(rest).toEqual([]);
    expect(provider).toMatchObject({ id: "apple", name: "Apple", responseMode: "form_post" });
    const url = provider?.createAuthorizationURL(input);
    expect(url?.searchParams.get("client_id")).toBe("com.example.web");
    expect(url?.searchParams.get("redirect_uri")).toBe(`${PUBLIC}/api/auth/callback/apple`);
    expect(url?.searchParams.get("scope")).toBe("name email");
    expect(url?.searchParams.get("response_mode")).toBe("form_post");
  });

  it("reads the redirect, the scopes, a key with escaped newlines and a key file", () => {
    const directory = mkdtempSync(join(tmpdir(), "svc-apple-"));
    directories.push(directory);
    const file = join(directory, "AuthKey_KEY1234567.p8");
    writeFileSync(file, appleKey);
    for (const privateKey of [file, appleKey.replaceAll("\n", "\\n")]) {
      const [provider] = parseOAuthConfig({
        ...apple,
        SVC_OAUTH_APPLE_PRIVATE_KEY: privateKey,
        SVC_OAUTH_APPLE_REDIRECT: "https://other.example/apple",
        SVC_OAUTH_APPLE_SCOPES: "email",
      });
      const url = provider?.createAuthorizationURL(input);
      expect(url?.searchParams.get("redirect_uri")).toBe("https://other.example/apple");
      expect(url?.searchParams.get("scope")).toBe("email");
    }
  });

  it("is disabled when none of its four variables is set", () => {
    expect(parseOAuthConfig({ SVC_OAUTH_APPLE_SCOPES: "email" }, { publicURL: PUBLIC })).toEqual(
      [],
    );
  });

  it.each(Object.keys(apple))("refuses a partial set without %s, naming it", (missing) => {
    const env: Record<string, string> = { ...apple };
    delete env[missing];
    const error = configError(() => parseOAuthConfig(env, { publicURL: PUBLIC }));
    expect(error.variable).toBe(missing);
    expect(error.message).not.toContain("BEGIN");
  });

  it("names the first missing variable of a smaller set", () => {
    const env = { SVC_OAUTH_APPLE_CLIENT_ID: "com.example.web" };
    expect(configError(() => parseOAuthConfig(env, { publicURL: PUBLIC })).variable).toBe(
      "SVC_OAUTH_APPLE_TEAM_ID",
    );
    const onlyKey = { SVC_OAUTH_APPLE_PRIVATE_KEY: appleKey };
    expect(configError(() => parseOAuthConfig(onlyKey, { publicURL: PUBLIC })).variable).toBe(
      "SVC_OAUTH_APPLE_CLIENT_ID",
    );
  });

  it.each([
    ["SVC_OAUTH_APPLE_TEAM_ID", "team123456"],
    ["SVC_OAUTH_APPLE_TEAM_ID", "TEAM12345"],
    ["SVC_OAUTH_APPLE_KEY_ID", "KEY12345678"],
    ["SVC_OAUTH_APPLE_KEY_ID", "KEY-123456"],
  ])("refuses %s = %s", (variable, id) => {
    const error = configError(() =>
      parseOAuthConfig({ ...apple, [variable]: id }, { publicURL: PUBLIC }),
    );
    expect(error.variable).toBe(variable);
    expect(error.message).not.toContain("\n");
  });

  const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  it.each([
    ["a missing file", "/nonexistent/AuthKey.p8"],
    ["a bare base64 body", appleKey.split("\n").slice(1, -2).join("")],
    ["a broken PEM", "-----BEGIN PRIVATE KEY-----\nAAAAsecretish\n-----END PRIVATE KEY-----"],
    ["an RSA key", rsa.export({ type: "pkcs8", format: "pem" }).toString()],
    ["a P-384 key", ec("secp384r1").export({ type: "pkcs8", format: "pem" }).toString()],
  ])("refuses %s as the key without printing it", (_, privateKey) => {
    const error = configError(() =>
      parseOAuthConfig(
        { ...apple, SVC_OAUTH_APPLE_PRIVATE_KEY: privateKey },
        { publicURL: PUBLIC },
      ),
    );
    expect(error.variable).toBe("SVC_OAUTH_APPLE_PRIVATE_KEY");
    expect(error.message).not.toContain("\n");
    const body = privateKey.split("\n").find((line) => line.length > 20 && !line.startsWith("-"));
    expect(error.message).not.toContain(body ?? privateKey);
    expect(error.message).not.toContain(privateKey.slice(0, 40));
  });

  it("refuses SVC_OAUTH_APPLE_CLIENT_SECRET: Apple's secret is minted", () => {
    for (const env of [
      { ...apple, SVC_OAUTH_APPLE_CLIENT_SECRET: "s3cret" },
      { SVC_OAUTH_APPLE_CLIENT_SECRET: "s3cret" },
    ]) {
      const error = configError(() => parseOAuthConfig(env, { publicURL: PUBLIC }));
      expect(error.variable).toBe("SVC_OAUTH_APPLE_CLIENT_SECRET");
      expect(error.message).not.toContain("s3cret");
    }
  });

  it("needs a public URL to derive its redirect", () => {
    expect(configError(() => parseOAuthConfig(apple)).variable).toBe("SVC_OAUTH_APPLE_REDIRECT");
  });

  it("knows all 25 built-in ids and enables them in the specification's order", () => {
    const env: Record<string, string> = { ...apple };
    for (const id of builtinProviderIds.filter((id) => id !== "apple")) {
      env[`SVC_OAUTH_${id.toUpperCase()}_CLIENT_ID`] = `${id}-id`;
      env[`SVC_OAUTH_${id.toUpperCase()}_CLIENT_SECRET`] = `${id}-secret`;
    }
    const providers = parseOAuthConfig(env, { publicURL: PUBLIC });
    expect(providers).toHaveLength(25);
    expect(providers.map((provider) => provider.id)).toEqual(builtinProviderIds);
  });
});
