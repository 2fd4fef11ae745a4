import { isWireError, toErrorResponse } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { JWTError, type JWTErrorCode } from "./jwt-errors.js";

describe("JWTError", () => {
  it.each<[JWTErrorCode, number, string]>([
    ["INVALID_JWT", 401, "The JWT is invalid or expired."],
    [
      "JWT_MISCONFIGURED",
      401,
      "JWTs are refused: SVC_JWT_SECRET is set but SVC_JWT_ISSUER is not.",
    ],
    ["JWT_NOT_CONFIGURED", 501, "JWT exchange is not configured (SVC_JWT_SECRET is unset)."],
  ])("%s is a %i wire error sent as it stands, cause left out", (code, status, message) => {
    const error = new JWTError(code, { cause: "expired" });
    expect(isWireError(error)).toBe(true);
    expect(toErrorResponse(error)).toEqual({
      status,
      body: { error: { code, message } },
      headers: {},
      internal: false,
    });
  });
});
