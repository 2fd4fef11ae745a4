import type { AddressInfo } from "node:net";
import { type AuthContext, createAuthContext } from "@svc/schema";
import express, { type RequestHandler } from "express";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SignIn } from "../auth-runtime.js";
import type { ClientInfo } from "../session-store.js";
import type { Totp } from "../totp/create-totp.js";
import type { VerifyChallengeBody } from "../totp/second-factor.js";
import { totpError } from "../totp/totp-errors.js";
import { authJsonBody } from "./json-body.js";
import { authenticate } from "./request-auth.js";
import { authErrorHandler } from "./router.js";
import { signInGuard } from "./sign-in-guard.js";
import { registerTotpRoutes } from "./totp-routes.js";

// The TOTP routes' own wiring, in process over a stub Totp: what reaches the
// core, the cookies `verify` sets and how errors come out. The flows
// themselves are covered in test/totp.test.ts.

const NOW = Date.UTC(2026, 10, 25, 10, 0, 0);
const NOW_SECS = NOW / 1000;
const CALLER: AuthContext = createAuthContext({
  userId: "u1",
  via: "session",
  sessionId: "s1",
});
const SIGN_IN: SignIn = { token: "svc_token", user_id: "u1", expires_at: NOW_SECS + 3600 };

function stubTotp(): Totp {
  return {
    gate: { challenge: vi.fn(async () => null) },
    now: () => NOW,
    status: vi.fn(async () => ({ enabled: true, backup_codes_left: 7 })),
    enroll: vi.fn(async () => ({ secret: "S", uri: "otpauth://totp/x:y?secret=S" })),
    confirm: vi.fn(async () => ({ enabled: true as const, backup_codes: ["abcde-fghjk"] })),
    disable: vi.fn(async () => ({ disabled: true as const })),
    verifyChallenge: vi.fn(async (_body: VerifyChallengeBody, _client: ClientInfo) => SIGN_IN),
    listDevices: vi.fn(async () => []),
    revokeDevice: vi.fn(async () => ({ revoked: true as const })),
    deleteForUser: vi.fn(async () => ({ secret: false, backupCodes: 0, trustedDevices: 0 })),
  };
}

let server: ReturnType<ReturnType<typeof express>["listen"]>;
let base: string;
let totp: ReturnType<typeof stubTotp>;
let limited: string[];

beforeEach(async () => {
  totp = stubTotp();
  limited = [];
  const limit: RequestHandler = (req, _res, next) => {
    limited.push(req.path);
    next();
  };
  const app = express();
  app.use(authenticate({ resolvers: [(token) => (token === "svc_caller" ? CALLER : null)] }));
  const router = express.Router();
  registerTotpRoutes(router, totp, {
    cookie: { sameSite: "lax", secure: true },
    json: authJsonBody(64 * 1024),
    limit,
  });
  app.use(router);
  app.use(authErrorHandler(() => {}));
  await new Promise<void>((resolve) => {
    server = app.listen(0, "127.0.0.1", () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function call(
  method: string,
  path: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
) {
  return fetch(`${base}${path}`, {
    method,
    headers: { authorization: "Bearer svc_caller", ...init.headers },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
}

describe("registerTotpRoutes", () => {
  it("verify passes body and client, sets the session cookie for its remaining lifetime", async () => {
    const response = await fetch(`${base}/api/auth/totp/verify`, {
      method: "POST",
      headers: { "user-agent": "UA/1", "x-svc-trusted-device": "device-token" },
      body: JSON.stringify({ challenge: "c", code: "123456" }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(SIGN_IN);
    expect(totp.verifyChallenge).toHaveBeenCalledWith(
      { challenge: "c", code: "123456" },
      { ip: "127.0.0.1", userAgent: "UA/1", trustedDevice: "device-token" },
    );
    expect(response.headers.getSetCookie()).toEqual([
      "svc_session=svc_token; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax",
    ]);
    expect(limited).toEqual(["/api/auth/totp/verify"]);
  });

  it("verify reads the trusted-device cookie and sets a new one when a device was trusted", async () => {
    vi.mocked(totp.verifyChallenge).mockResolvedValueOnce({
      ...SIGN_IN,
      trusted_device: { token: "new-device", expires_at: NOW_SECS + 30 * 86400 },
    });
    const response = await fetch(`${base}/api/auth/totp/verify`, {
      method: "POST",
      headers: { cookie: "svc_trusted_device=old-device" },
      body: JSON.stringify({ challenge: "c", code: "123456", trust_device: true }),
    });
    expect(response.status).toBe(200);
    expect(vi.mocked(totp.verifyChallenge).mock.calls[0]?.[1]).toMatchObject({
      trustedDevice: "old-device",
    });
    expect(response.headers.getSetCookie()).toEqual([
      "svc_session=svc_token; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax",
      "svc_trusted_device=new-device; Max-Age=2592000; Path=/; HttpOnly; Secure; SameSite=Lax",
    ]);
  });

  it("answers a core error in the svc envelope and sets no cookie", async () => {
    vi.mocked(totp.verifyChallenge).mockRejectedValueOnce(totpError("INVALID_CHALLENGE"));
    const response = await fetch(`${base}/api/auth/totp/verify`, { method: "POST", body: "{}" });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: { code: "INVALID_CHALLENGE", message: expect.any(String) },
    });
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  it("an invalid JSON body is 400 INVALID_JSON before the core is asked", async () => {
    const response = await fetch(`${base}/api/auth/totp/verify`, { method: "POST", body: "{" });
    expect(response.status).toBe(400);
    expect(totp.verifyChallenge).not.toHaveBeenCalled();
  });

  it.each([
    ["GET", "/api/auth/totp", "status", [CALLER]],
    ["POST", "/api/auth/totp/enroll", "enroll", [CALLER]],
    ["POST", "/api/auth/totp/confirm", "confirm", [CALLER, { code: "1" }, "127.0.0.1"]],
    ["POST", "/api/auth/totp/disable", "disable", [CALLER, { code: "1" }, "127.0.0.1"]],
    ["GET", "/api/auth/trusted-devices", "listDevices", [CALLER]],
    ["DELETE", "/api/auth/trusted-devices/dev-1", "revokeDevice", [CALLER, "dev-1", "127.0.0.1"]],
  ] as const)("%s %s calls %s with the caller", async (method, path, name, args) => {
    const body = method === "POST" && name !== "enroll" ? { code: "1" } : undefined;
    const response = await call(method, path, { body });
    expect(response.status).toBe(200);
    expect(totp[name]).toHaveBeenCalledWith(...args);
    expect(limited).toEqual(name === "confirm" || name === "disable" ? [path] : []);
  });
});

describe("registerTotpRoutes with the sign-in guard", () => {
  // verify sets the session cookie, so it is guarded against login CSRF.
  async function serveGuarded(): Promise<{ url: string; close(): Promise<void> }> {
    const app = express();
    const router = express.Router();
    registerTotpRoutes(router, totp, {
      cookie: { sameSite: "lax", secure: true },
      json: authJsonBody(64 * 1024),
      signIn: signInGuard(["https://app.example"]),
    });
    app.use(router);
    app.use(authErrorHandler(() => {}));
    const guarded = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => guarded.once("listening", resolve));
    return {
      url: `http://127.0.0.1:${(guarded.address() as AddressInfo).port}`,
      close: () => new Promise((resolve) => guarded.close(() => resolve())),
    };
  }

  it("refuses verify from an untrusted origin before the core is asked", async () => {
    const guarded = await serveGuarded();
    const response = await fetch(`${guarded.url}/api/auth/totp/verify`, {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "application/json" },
      body: JSON.stringify({ challenge: "c", code: "123456" }),
    });
    await guarded.close();
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: "CSRF_FAILED" } });
    expect(totp.verifyChallenge).not.toHaveBeenCalled();
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  it("answers a native client's non-JSON verify without any cookie", async () => {
    vi.mocked(totp.verifyChallenge).mockResolvedValueOnce({
      ...SIGN_IN,
      trusted_device: { token: "new-device", expires_at: NOW_SECS + 30 * 86400 },
    });
    const guarded = await serveGuarded();
    const response = await fetch(`${guarded.url}/api/auth/totp/verify`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ challenge: "c", code: "123456", trust_device: true }),
    });
    await guarded.close();
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      token: "svc_token",
      trusted_device: { token: "new-device" },
    });
    expect(response.headers.getSetCookie()).toEqual([]);
  });
});
