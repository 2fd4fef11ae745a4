import { describe, expect, it, vi } from "vitest";
import { createAuthContext } from "./auth-context.js";
import { findCaller, getCaller, isCookieCaller, setCaller } from "./caller.js";
import { isWireError } from "./wire-error.js";

const alice = createAuthContext({ userId: "alice", via: "session", sessionId: "s1" });

describe("the request's caller", () => {
  it("is what setCaller recorded, per request", () => {
    const first = { headers: {} };
    const second = { headers: {} };
    setCaller(first, alice);
    expect(getCaller(first)).toBe(alice);
    expect(findCaller(first)).toBe(alice);
    expect(findCaller(second)).toBeUndefined();
  });

  it("refuses a request the gate never saw with 401 AUTH_REQUIRED, not a 500", () => {
    let thrown: unknown;
    try {
      getCaller({});
    } catch (error) {
      thrown = error;
    }
    expect(isWireError(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      code: "AUTH_REQUIRED",
      status: 401,
      message: "No caller was resolved for this request.",
    });
  });

  it("remembers whether the caller came from the session cookie, and forgets it when set again", () => {
    const req = {};
    setCaller(req, alice, { cookie: true });
    expect(isCookieCaller(req)).toBe(true);
    setCaller(req, alice);
    expect(isCookieCaller(req)).toBe(false);
    expect(isCookieCaller({})).toBe(false);
  });

  it("writes nothing onto the request (no key, no symbol, nothing serialized)", () => {
    const req = { method: "GET" };
    setCaller(req, alice, { cookie: true });
    expect(Reflect.ownKeys(req)).toEqual(["method"]);
    expect(JSON.stringify(req)).toBe('{"method":"GET"}');
  });

  it("is shared with another copy of this package in the same process", async () => {
    const req = {};
    setCaller(req, alice);
    // A second module instance (as a bundled router would load) reads the same registry.
    vi.resetModules();
    const copy = await import("./caller.js");
    expect(copy.getCaller).not.toBe(getCaller);
    expect(copy.getCaller(req)).toBe(alice);
  });
});
