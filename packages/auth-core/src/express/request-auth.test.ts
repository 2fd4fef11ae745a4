import { adminAuth, toErrorResponse } from "@svc/schema";
import type { Request } from "express";
import { describe, expect, it } from "vitest";
import { adminTokenResolver, apiKeyResolver, getAuth, type RequestInfo } from "./request-auth.js";

const info: RequestInfo = { ip: "127.0.0.1", userAgent: undefined, cookie: undefined };
const hexToken = "ab".repeat(64);

describe("adminTokenResolver", () => {
  it("accepts exactly the admin token", () => {
    const resolve = adminTokenResolver(hexToken);
    expect(resolve(hexToken, info)).toBe(adminAuth);
    expect(resolve(`${hexToken}0`, info)).toBeNull();
    expect(resolve(hexToken.slice(1), info)).toBeNull();
    expect(resolve("", info)).toBeNull();
    // Same number of characters, more bytes: refused, not thrown.
    expect(resolve(`${hexToken.slice(1)}é`, info)).toBeNull();
  });

  it("passes session, API-key and JWT shaped tokens on", () => {
    const resolve = adminTokenResolver(hexToken);
    expect(resolve(`svc_${hexToken}`, info)).toBeNull();
    expect(resolve(`pk.${hexToken}`, info)).toBeNull();
    expect(resolve("eyJh.eyJz.c2ln", info)).toBeNull();
  });

  it("still matches an admin token that carries another kind's mark itself", () => {
    for (const token of [`svc_${hexToken}`, `pk.${hexToken}`, `${hexToken}.${hexToken}`]) {
      const resolve = adminTokenResolver(token);
      expect(resolve(token, info)).toBe(adminAuth);
      expect(resolve(`${token}x`, info)).toBeNull();
    }
  });
});

describe("apiKeyResolver", () => {
  it("asks the key store about pk. tokens only, and passes others on at once", async () => {
    const asked: string[] = [];
    const resolve = apiKeyResolver({
      resolveApiKey: async (token) => {
        asked.push(token);
        return adminAuth;
      },
    });
    expect(resolve("svc_abc", info)).toBeNull();
    expect(resolve("eyJh.eyJz.c2ln", info)).toBeNull();
    await expect(resolve("pk.abc.def", info)).resolves.toBe(adminAuth);
    expect(asked).toEqual(["pk.abc.def"]);
  });
});

describe("getAuth", () => {
  // Regression: a request the app's gate never saw (an absolute-form target
  // slipped past its prefix test) threw a plain Error, answered 500.
  it("refuses a request authenticate never saw with 401 AUTH_REQUIRED, not a 500", () => {
    let thrown: unknown;
    try {
      getAuth({} as Request);
    } catch (error) {
      thrown = error;
    }
    // @svc/schema's getCaller (getAuth is its alias): a wire error of the common code.
    expect(thrown).toMatchObject({ code: "AUTH_REQUIRED", expose: true });
    const { status, body, internal } = toErrorResponse(thrown);
    expect({ status, code: body.error.code, internal }).toEqual({
      status: 401,
      code: "AUTH_REQUIRED",
      internal: false,
    });
  });
});
