import { describe, expect, it } from "vitest";
import {
  adminAuth,
  anonymousAuth,
  authContextSchema,
  createAuthContext,
  isRealSession,
} from "./auth-context.js";

describe("AuthContext", () => {
  it("defaults every field to the anonymous caller's and freezes the result", () => {
    const auth = createAuthContext({ userId: "u1", via: "session", sessionId: "s1" });
    expect(auth).toStrictEqual({
      userId: "u1",
      tenantId: null,
      roles: [],
      entitlements: [],
      isAdmin: false,
      isGuest: false,
      via: "session",
      sessionId: "s1",
    });
    expect(Object.isFrozen(auth)).toBe(true);
  });

  it("has no entitlements unless given, for the anonymous, admin and built callers", () => {
    for (const auth of [anonymousAuth, adminAuth, createAuthContext()]) {
      expect(auth.entitlements).toEqual([]);
      expect(Object.isFrozen(auth.entitlements)).toBe(true);
    }
    const paid = createAuthContext({ userId: "u1", entitlements: ["price_pro", "prod_pro"] });
    expect(paid.entitlements).toEqual(["price_pro", "prod_pro"]);
    expect(authContextSchema.parse(paid)).toStrictEqual(paid);
  });

  it("refuses a context without entitlements or with a non-string one", () => {
    const { entitlements: _, ...withoutEntitlements } = anonymousAuth;
    expect(authContextSchema.safeParse(withoutEntitlements).success).toBe(false);
    expect(authContextSchema.safeParse({ ...anonymousAuth, entitlements: [1] }).success).toBe(
      false,
    );
  });

  it("parses with its zod schema, and refuses an unknown `via`", () => {
    expect(authContextSchema.parse(adminAuth)).toStrictEqual(adminAuth);
    expect(authContextSchema.safeParse({ ...anonymousAuth, via: "cookie" }).success).toBe(false);
  });

  it.each([
    ["a real session", createAuthContext({ userId: "u", via: "session", sessionId: "s" }), true],
    [
      "a guest",
      createAuthContext({ userId: "u", via: "guest", isGuest: true, sessionId: "s" }),
      false,
    ],
    ["an API key", createAuthContext({ userId: "u", via: "api-key" }), false],
    ["a JWT", createAuthContext({ userId: "u", via: "jwt" }), false],
    ["the admin token", adminAuth, false],
    ["anonymous", anonymousAuth, false],
  ])("isRealSession(%s) is %s", (_label, auth, expected) => {
    expect(isRealSession(auth)).toBe(expected);
  });
});
