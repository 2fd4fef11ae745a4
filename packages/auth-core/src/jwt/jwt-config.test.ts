import { ConfigError } from "@svc/schema";
import { thrownBy } from "@svc/tooling/thrown";
import { describe, expect, it } from "vitest";
import { parseJWTConfig } from "./jwt-config.js";

const SECRET = "0123456789abcdef0123456789abcdef";

function configError(env: Record<string, string | undefined>): ConfigError {
  return thrownBy(ConfigError, () => parseJWTConfig(env));
}

describe("parseJWTConfig", () => {
  it.each<[Record<string, string | undefined>]>([
    [{}],
    [{ SVC_JWT_SECRET: "" }],
    [{ SVC_JWT_SECRET: "   ", SVC_JWT_ISSUER: "", SVC_JWT_LIFETIME_SECS: "" }],
  ])("turns JWT exchange off for %j", (env) => {
    expect(parseJWTConfig(env)).toEqual({
      secret: undefined,
      issuer: undefined,
      lifetimeSecs: 3600,
      warnings: [],
    });
  });

  it("reads a full configuration, trimmed", () => {
    expect(
      parseJWTConfig({
        SVC_JWT_SECRET: ` ${SECRET}\n`,
        SVC_JWT_ISSUER: "https://svc.example",
        SVC_JWT_LIFETIME_SECS: "900",
      }),
    ).toEqual({ secret: SECRET, issuer: "https://svc.example", lifetimeSecs: 900, warnings: [] });
  });

  it.each([SECRET.slice(1), "short", "x"])(
    "refuses a secret of %j (under 32 characters) without echoing it",
    (secret) => {
      const error = configError({ SVC_JWT_SECRET: secret, SVC_JWT_ISSUER: "svc" });
      expect(error.variable).toBe("SVC_JWT_SECRET");
      expect(error.message).toBe("SVC_JWT_SECRET: must be at least 32 characters long");
    },
  );

  it.each(["60", "3600", "2592000", "0900"])("accepts SVC_JWT_LIFETIME_SECS=%j", (value) => {
    expect(parseJWTConfig({ SVC_JWT_LIFETIME_SECS: value }).lifetimeSecs).toBe(Number(value));
  });

  it.each(["59", "0", "2592001", "-60", "1.5", "1e3", "0x3c", "3600s", "NaN", "99999999999999"])(
    "refuses SVC_JWT_LIFETIME_SECS=%j",
    (value) => {
      const error = configError({ SVC_JWT_SECRET: SECRET, SVC_JWT_LIFETIME_SECS: value });
      expect(error.variable).toBe("SVC_JWT_LIFETIME_SECS");
      expect(error.message).toBe(
        "SVC_JWT_LIFETIME_SECS: must be a whole number of seconds from 60 to 2592000",
      );
    },
  );

  it.each(["svc\nevil", "x".repeat(257)])("refuses the issuer %j", (issuer) => {
    expect(configError({ SVC_JWT_ISSUER: issuer }).variable).toBe("SVC_JWT_ISSUER");
  });

  it("boots with a secret but no issuer, warning that every JWT will be refused", () => {
    const config = parseJWTConfig({ SVC_JWT_SECRET: SECRET });
    expect(config.secret).toBe(SECRET);
    expect(config.issuer).toBeUndefined();
    expect(config.warnings).toEqual([
      "SVC_JWT_SECRET is set but SVC_JWT_ISSUER is not: every JWT is refused with JWT_MISCONFIGURED and POST /api/auth/jwt fails until SVC_JWT_ISSUER is set.",
    ]);
  });

  it("warns about an issuer without a secret", () => {
    expect(parseJWTConfig({ SVC_JWT_ISSUER: "svc" }).warnings).toEqual([
      "SVC_JWT_ISSUER is set but SVC_JWT_SECRET is not: JWT exchange is off.",
    ]);
  });
});
