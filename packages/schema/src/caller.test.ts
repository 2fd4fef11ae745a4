import { describe, expect, it, vi } from "vitest";
import { adminAuth, createAuthContext } from "./auth-context.js";
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

  it("adds nothing a request's keys, for...in or JSON would show", () => {
    const req = { method: "GET" };
    setCaller(req, alice, { cookie: true });
    expect(Object.keys(req)).toEqual(["method"]);
    const walked: string[] = [];
    for (const key in req) walked.push(key);
    expect(walked).toEqual(["method"]);
    expect(JSON.stringify(req)).toBe('{"method":"GET"}');
    expect(getCaller(req)).toBe(alice);
  });

  it("replaces a request's caller and cookie flag when set again", () => {
    const req = {};
    setCaller(req, alice, { cookie: true });
    expect(isCookieCaller(req)).toBe(true);
    setCaller(req, adminAuth);
    expect([getCaller(req), isCookieCaller(req)]).toEqual([adminAuth, false]);
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
