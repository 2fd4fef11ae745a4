import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../src/config.js";
import { startTestServer } from "./fixtures.js";

const token = "f".repeat(128);

function variableOf(env: Record<string, string>): string | undefined {
  try {
    parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.variable;
    throw error;
  }
  return undefined;
}

describe("parseConfig", () => {
  it("applies the spec's defaults", () => {
    const config = parseConfig({ SVC_ADMIN_TOKEN: token });
    expect(config).toMatchObject({
      port: 4321,
      devMode: false,
      manifestPath: "svc.json",
      drainSeconds: 10,
      adminToken: token,
    });
  });

  it.each([
    ["SVC_ADMIN_TOKEN unset outside dev mode", {}, "SVC_ADMIN_TOKEN"],
    ["a short admin token", { SVC_ADMIN_TOKEN: "short" }, "SVC_ADMIN_TOKEN"],
    [
      "SVC_CORS_ORIGIN=* outside dev mode",
      { SVC_ADMIN_TOKEN: token, SVC_CORS_ORIGIN: "*" },
      "SVC_CORS_ORIGIN",
    ],
    ["a port out of range", { SVC_ADMIN_TOKEN: token, SVC_PORT: "70000" }, "SVC_PORT"],
    ["a port that is not a number", { SVC_ADMIN_TOKEN: token, SVC_PORT: "http" }, "SVC_PORT"],
    ["a non-boolean dev mode", { SVC_DEV_MODE: "maybe" }, "SVC_DEV_MODE"],
    [
      "a DATABASE_URL of another kind",
      { SVC_ADMIN_TOKEN: token, DATABASE_URL: "mysql://x" },
      "DATABASE_URL",
    ],
    [
      "a sync retention under a minute",
      { SVC_ADMIN_TOKEN: token, SVC_SYNC_RETENTION_SECS: "5" },
      "SVC_SYNC_RETENTION_SECS",
    ],
    [
      "a sync retention count that is not a number",
      { SVC_ADMIN_TOKEN: token, SVC_SYNC_RETENTION_ENTRIES: "lots" },
      "SVC_SYNC_RETENTION_ENTRIES",
    ],
    [
      "a public URL that is not a URL",
      { SVC_ADMIN_TOKEN: token, SVC_PUBLIC_URL: "nope" },
      "SVC_PUBLIC_URL",
    ],
  ])("refuses %s, naming the variable", (_label, env, variable) => {
    expect(variableOf(env)).toBe(variable);
  });

  it("reads the sync log's retention, a week and a million entries by default", () => {
    expect(parseConfig({ SVC_ADMIN_TOKEN: token }).syncRetention).toEqual({
      maxAgeMs: 7 * 24 * 3600 * 1000,
      maxEntries: 1_000_000,
    });
    const config = parseConfig({
      SVC_ADMIN_TOKEN: token,
      SVC_SYNC_RETENTION_SECS: "3600",
      SVC_SYNC_RETENTION_ENTRIES: "5000",
    });
    expect(config.syncRetention).toEqual({ maxAgeMs: 3_600_000, maxEntries: 5000 });
  });

  it("allows dev mode without an admin token and with CORS *", () => {
    const config = parseConfig({ SVC_DEV_MODE: "true", SVC_CORS_ORIGIN: "*" });
    expect(config.devMode).toBe(true);
    expect(config.adminToken).toBeUndefined();
    expect(config.corsOrigins).toEqual(["*"]);
  });

  it.each([
    [undefined, false],
    ["false", false],
    ["true", true],
    ["1", 1],
    ["loopback, 10.0.0.0/8", "loopback, 10.0.0.0/8"],
  ])("reads SVC_TRUST_PROXY=%s as %j", (value, expected) => {
    const env = { SVC_ADMIN_TOKEN: token, ...(value !== undefined && { SVC_TRUST_PROXY: value }) };
    expect(parseConfig(env).trustProxy).toEqual(expected);
  });

  it("refuses a SVC_TRUST_PROXY that is not an address list", () => {
    expect(variableOf({ SVC_ADMIN_TOKEN: token, SVC_TRUST_PROXY: "yes please; drop table" })).toBe(
      "SVC_TRUST_PROXY",
    );
  });

  it("splits origin lists", () => {
    const config = parseConfig({
      SVC_ADMIN_TOKEN: token,
      SVC_CORS_ORIGIN: "https://a.example, https://b.example",
    });
    expect(config.corsOrigins).toEqual(["https://a.example", "https://b.example"]);
  });

  // Regression: SVC_OAUTH_GITHUB_CLIENT_ID without its secret stopped the
  // boot; the spec says such a provider "is disabled and not listed by
  // /api/auth/providers".
  it.each([
    ["SVC_OAUTH_GITHUB_CLIENT_SECRET", { SVC_OAUTH_GITHUB_CLIENT_ID: "Iv1.abc" }],
    ["SVC_OAUTH_GITHUB_CLIENT_ID", { SVC_OAUTH_GITHUB_CLIENT_SECRET: "shh" }],
  ])("leaves out a provider whose %s is unset, with one warning naming it", (variable, env) => {
    const config = parseConfig({
      SVC_ADMIN_TOKEN: token,
      SVC_PUBLIC_URL: "https://a.example",
      ...env,
    });
    expect(config.oauth).toEqual([]);
    expect(config.warnings).toHaveLength(1);
    expect(config.warnings[0]).toMatch(new RegExp(`^${variable} is unset`));
    expect(config.warnings[0]).not.toContain("\n");
    expect(config.warnings[0]).not.toContain("Iv1.abc");
    expect(config.warnings[0]).not.toContain("shh");
  });
});

describe("a half-configured OAuth provider", () => {
  it("boots without it, lists only the complete ones and warns once naming the variable", async () => {
    await using server = await startTestServer({
      SVC_DB_PATH: ":memory:",
      SVC_SESSION_DB: ":memory:",
      SVC_PUBLIC_URL: "https://a.example",
      SVC_OAUTH_GITHUB_CLIENT_ID: "Iv1.abc",
      SVC_OAUTH_GITLAB_CLIENT_ID: "gl",
      SVC_OAUTH_GITLAB_CLIENT_SECRET: "gl-secret",
    });
    const response = await fetch(`${server.url}/api/auth/providers`);
    expect(response.status).toBe(200);
    const listed = JSON.stringify(await response.json());
    expect(listed).toContain("gitlab");
    expect(listed).not.toContain("github");
    const oauthWarnings = server.warnings.filter((line) => line.includes("SVC_OAUTH_"));
    expect(oauthWarnings).toEqual([
      expect.stringMatching(
        /^SVC_OAUTH_GITHUB_CLIENT_SECRET is unset while SVC_OAUTH_GITHUB_CLIENT_ID is set/,
      ),
    ]);
  });
});
