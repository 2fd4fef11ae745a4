import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, ConfigErrors, parseConfig } from "../src/config.js";
import { startTestServer, tempDir } from "./fixtures.js";

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

/** Every problem `parseConfig` reports, as `variable: message` lines. */
function problemsOf(
  env: Record<string, string>,
  options?: Parameters<typeof parseConfig>[1],
): string[] {
  try {
    parseConfig(env, options);
  } catch (error) {
    if (error instanceof ConfigErrors) return error.problems.map((problem) => problem.message);
    if (error instanceof ConfigError) return [error.message];
    throw error;
  }
  return [];
}

// Regression: each attempt named only the first bad setting, so a first
// production boot took one try per missing variable.
describe("parseConfig with several problems", () => {
  it("reports every one at once, in one ConfigErrors with a line each", () => {
    const env = {
      SVC_PORT: "http",
      SVC_PUBLIC_URL: "nope",
      SVC_CORS_ORIGIN: "*",
      SVC_COOKIE_SAME_SITE: "sometimes",
      SVC_FILES_PROVIDER: "s3",
    };
    let thrown: unknown;
    try {
      parseConfig(env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigErrors);
    // Still a ConfigError naming the first variable, for callers that know only one.
    expect(thrown).toBeInstanceOf(ConfigError);
    const errors = thrown as ConfigErrors;
    expect(errors.variable).toBe("SVC_PORT");
    expect(errors.problems.map((problem) => problem.variable)).toEqual([
      "SVC_PORT",
      "SVC_PUBLIC_URL",
      "SVC_ADMIN_TOKEN",
      "SVC_CORS_ORIGIN",
      "SVC_COOKIE_SAME_SITE",
      "SVC_S3_BUCKET",
    ]);
    expect(errors.message.split("\n")).toEqual(errors.problems.map((problem) => problem.message));
  });

  it("throws a single problem as the plain ConfigError", () => {
    let thrown: unknown;
    try {
      parseConfig({ SVC_ADMIN_TOKEN: token, SVC_PORT: "http" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect(thrown).not.toBeInstanceOf(ConfigErrors);
  });

  it.each([
    [
      "a short admin token is not also called unset",
      { SVC_ADMIN_TOKEN: "short" },
      ["SVC_ADMIN_TOKEN: must be at least 64 characters (use 64 random bytes as hex)"],
    ],
    [
      "a bad email provider, read by auth and by ctx.email, is named once",
      { SVC_ADMIN_TOKEN: token, SVC_EMAIL_PROVIDER: "carrier-pigeon" },
      [expect.stringMatching(/^SVC_EMAIL_PROVIDER: /)],
    ],
    [
      "an invalid SVC_DEV_MODE adds no rule that depends on it",
      { SVC_DEV_MODE: "maybe", SVC_CORS_ORIGIN: "*" },
      [expect.stringMatching(/^SVC_DEV_MODE: /)],
    ],
  ])("%s", (_label, env, expected) => {
    expect(problemsOf(env)).toEqual(expected);
  });

  it("with checkManifest, names a manifest path with no file beside the other problems", () => {
    expect(problemsOf({}, { checkManifest: true })).toEqual([
      `SVC_MANIFEST: cannot read ${resolve("svc.json")}: no such file (SVC_MANIFEST is unset, so svc.json in the working directory; set it to your app's manifest)`,
      "SVC_ADMIN_TOKEN: must be set outside dev mode (SVC_DEV_MODE=true)",
    ]);
    using dir = tempDir();
    const missing = join(dir.path, "app", "svc.json");
    expect(
      problemsOf({ SVC_MANIFEST: missing, SVC_DEV_MODE: "true" }, { checkManifest: true }),
    ).toEqual([`SVC_MANIFEST: cannot read ${missing}: no such file`]);
    const present = join(dir.path, "svc.json");
    writeFileSync(present, "{}");
    expect(
      problemsOf({ SVC_MANIFEST: present, SVC_DEV_MODE: "true" }, { checkManifest: true }),
    ).toEqual([]);
    // Without the option only the environment is read.
    expect(problemsOf({ SVC_MANIFEST: missing, SVC_DEV_MODE: "true" })).toEqual([]);
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
