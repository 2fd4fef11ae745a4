import { describe, expect, it } from "vitest";
import { OAuthError, type OAuthErrorCode, oauthErrorCodes } from "./errors.js";

describe("OAuthError", () => {
  it.each([
    ["INVALID_STATE", 400],
    ["PROVIDER_ERROR", 502],
    ["PROVIDER_DENIED", 400],
    ["INVALID_ID_TOKEN", 401],
    ["UNKNOWN_PROVIDER", 404],
  ] as const)("%s is %i", (code: OAuthErrorCode, status) => {
    const error = new OAuthError(code, { cause: new Error("provider said: client_secret=abc") });
    expect(error).toMatchObject({ code, status, expose: true, name: "OAuthError" });
    expect(error.message).toBe(oauthErrorCodes[code].message);
    expect(error.message).not.toContain("client_secret");
  });

  it("has exactly the documented codes", () => {
    expect(Object.keys(oauthErrorCodes).sort()).toEqual([
      "INVALID_ID_TOKEN",
      "INVALID_STATE",
      "PROVIDER_DENIED",
      "PROVIDER_ERROR",
      "UNKNOWN_PROVIDER",
    ]);
  });
});
