import { closeFakeServers } from "@svc/tooling/http-server";
import { afterEach, describe, expect, it } from "vitest";
import type { AuthRouterOptions } from "../src/express.js";
import type { Auth } from "../src/index.js";
import { type AuthFixture, databases, useAuthFixture } from "./fixture.js";
import { serveAuthRouter } from "./serve-auth-router.js";

// Login CSRF (issue 21, finding 5): another site must not be able to sign a
// browser into an account of its choosing. The sign-in routes that set the
// session cookie used to answer any origin and any content type (an HTML
// form with enctype="text/plain" can post a JSON-looking body), because the
// CSRF check only covered requests already authenticated by the cookie.

const TRUSTED = "https://app.example.com";
const PUBLIC_URL = "https://api.example.com/base";
const EVIL = "https://evil.example";
const PASSWORD = "a long enough password";

afterEach(closeFakeServers);

function serve(auth: Auth, router: Partial<AuthRouterOptions> = {}): Promise<string> {
  return serveAuthRouter(auth, {
    router: { trustedOrigins: [TRUSTED], publicURL: PUBLIC_URL, ...router },
  });
}

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly cookie: string | undefined;
}

async function send(
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    cookie: response.headers.getSetCookie().find((value) => value.startsWith("svc_session=")),
  };
}

const JSON_TYPE = { "content-type": "application/json" };

/** A cookie-setting route and how to make one request to it that signs in. */
interface SignInRoute {
  readonly path: string;
  /** Prepares a fresh account (or code) and returns a body that signs in once. */
  prepare(f: AuthFixture, auth: Auth, n: number): Promise<unknown>;
}

const routes: readonly [string, SignInRoute][] = [
  ["guest", { path: "/api/auth/guest", prepare: async () => undefined }],
  [
    "password register",
    {
      path: "/api/auth/password/register",
      prepare: async (_f, _auth, n) => ({ email: `register-${n}@example.com`, password: PASSWORD }),
    },
  ],
  [
    "password login",
    {
      path: "/api/auth/password/login",
      prepare: async (_f, auth, n) => {
        const email = `login-${n}@example.com`;
        await auth.registerPassword({ email, password: PASSWORD }, {});
        return { email, password: PASSWORD };
      },
    },
  ],
  [
    "magic code verify",
    {
      path: "/api/auth/magic/verify",
      prepare: async (f, auth, n) => {
        const email = `magic-${n}@example.com`;
        await auth.sendMagicCode({ email }, { exposeDevCode: false });
        return { email, code: f.lastCode(email) };
      },
    },
  ],
  [
    "magic link verify",
    {
      path: "/api/auth/magic-link/verify",
      prepare: async (f, auth, n) => {
        const email = `link-${n}@example.com`;
        const targets = { baseURL: PUBLIC_URL, trustedOrigins: [] };
        await auth.sendMagicLink({ email }, { ...targets, exposeDevCode: false });
        return { email, token: f.lastLink(email).searchParams.get("token") };
      },
    },
  ],
  [
    "password reset",
    {
      path: "/api/auth/password/reset",
      prepare: async (f, auth, n) => {
        const email = `reset-${n}@example.com`;
        await f.registerVerified(email, PASSWORD);
        await auth.sendPasswordReset({ email }, { exposeDevCode: false });
        return { email, code: f.lastCode(email), password: `${PASSWORD} again` };
      },
    },
  ],
  [
    "phone verify",
    {
      path: "/api/auth/phone/verify",
      prepare: async (f, auth, n) => {
        const phone = `+1415555${String(1000 + n).padStart(4, "0")}`;
        await f.insertUser({ email: `phone-${n}@example.com`, phone });
        await auth.sendPhoneCode({ phone }, { exposeDevCode: false });
        return { phone, code: f.lastCode(phone) };
      },
    },
  ],
];

describe.each(databases)("sign-in routes against login CSRF on $name", (database) => {
  const fixture = useAuthFixture(database);
  let counter = 0;

  async function setUp(router: Partial<AuthRouterOptions> = {}) {
    const f = fixture();
    const auth = f.createAuth({ sms: f.inbox });
    const base = await serve(auth, router);
    return { f, auth, base };
  }

  /** A fresh server and a password login for a registered account, sent with `headers`. */
  async function passwordLogin() {
    const { f, auth, base } = await setUp();
    const login = routes[2]?.[1];
    if (login === undefined) throw new Error("no login route");
    const body = await login.prepare(f, auth, ++counter);
    return {
      base,
      send: (headers: Record<string, string>) => send(base, login.path, body, headers),
    };
  }

  it.each(routes)(
    "%s: refuses an untrusted Origin with a text/plain body, and spends nothing",
    async (_, route) => {
      const { f, auth, base } = await setUp();
      const body = await route.prepare(f, auth, ++counter);
      const refused = await send(base, route.path, body, {
        origin: EVIL,
        ...(body !== undefined && { "content-type": "text/plain" }),
      });
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
      expect(refused.body).toMatchObject({ error: { code: "CSRF_FAILED" } });
      expect(refused.cookie).toBeUndefined();
      // The code, link or account is untouched: the same request from the app signs in.
      const accepted = await send(base, route.path, body, { origin: TRUSTED, ...JSON_TYPE });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect(accepted.body.token).toMatch(/^svc_/);
      expect(accepted.cookie).toMatch(/^svc_session=svc_/);
    },
  );

  it.each(routes)("%s: refuses an untrusted Origin even with a JSON body", async (_, route) => {
    const { f, auth, base } = await setUp();
    const body = await route.prepare(f, auth, ++counter);
    const refused = await send(base, route.path, body, { origin: EVIL, ...JSON_TYPE });
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "CSRF_FAILED" } } });
  });

  it("refuses a trusted Origin whose body is not declared JSON (a form on that page)", async () => {
    const login = await passwordLogin();
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]) {
      const refused = await login.send({ origin: TRUSTED, "content-type": type });
      expect(refused, type).toMatchObject({
        status: 403,
        body: { error: { code: "CSRF_FAILED" } },
      });
      expect(refused.cookie).toBeUndefined();
    }
  });

  it.each([
    ["Origin: null", { origin: "null" }],
    ["Sec-Fetch-Site: cross-site without Origin", { "sec-fetch-site": "cross-site" }],
    ["Sec-Fetch-Site: same-site without Origin", { "sec-fetch-site": "same-site" }],
    ["a trusted origin of another scheme", { origin: "http://app.example.com" }],
  ])("refuses a guest sign-in with %s", async (_, headers) => {
    const { base } = await setUp();
    const refused = await send(base, "/api/auth/guest", undefined, headers);
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "CSRF_FAILED" } } });
    expect(refused.cookie).toBeUndefined();
  });

  it.each([
    ["a trusted origin", () => ({ origin: TRUSTED, ...JSON_TYPE })],
    ["the server's own origin", (base: string) => ({ origin: base, ...JSON_TYPE })],
    [
      "the public URL's origin (a proxy rewrote Host)",
      () => ({ origin: "https://api.example.com", ...JSON_TYPE }),
    ],
    ["Sec-Fetch-Site: same-origin", () => ({ "sec-fetch-site": "same-origin", ...JSON_TYPE })],
    ["no Origin (a native client)", () => JSON_TYPE],
  ])("signs in with the cookie for %s", async (_, headersOf) => {
    const login = await passwordLogin();
    const answer = await login.send(headersOf(login.base));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.cookie).toMatch(/^svc_session=svc_/);
  });

  it("answers a native client's non-JSON body (curl -d) with the token but no cookie", async () => {
    const login = await passwordLogin();
    const answer = await login.send({ "content-type": "application/x-www-form-urlencoded" });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.token).toMatch(/^svc_/);
    expect(answer.cookie).toBeUndefined();
    // A guest sign-in without a body still gets its cookie.
    const guest = await send(login.base, "/api/auth/guest", undefined, {});
    expect(guest.status).toBe(200);
    expect(guest.cookie).toMatch(/^svc_session=svc_/);
  });

  it("trusts every origin but null with csrfOrigins: true (dev mode)", async () => {
    const { base } = await setUp({ csrfOrigins: true });
    const any = await send(base, "/api/auth/guest", undefined, { origin: EVIL });
    expect(any.status).toBe(200);
    const opaque = await send(base, "/api/auth/guest", undefined, { origin: "null" });
    expect(opaque).toMatchObject({ status: 403, body: { error: { code: "CSRF_FAILED" } } });
  });

  it("uses csrfOrigins instead of trustedOrigins when given", async () => {
    const { base } = await setUp({ csrfOrigins: ["https://other.example.com"] });
    const listed = await send(base, "/api/auth/guest", undefined, {
      origin: "https://other.example.com",
    });
    expect(listed.status).toBe(200);
    const redirectOnly = await send(base, "/api/auth/guest", undefined, { origin: TRUSTED });
    expect(redirectOnly.status).toBe(403);
  });

  it("guards TOTP verify, which also sets the cookie", async () => {
    const { base } = await setUp();
    const verifyFrom = (origin: string) =>
      send(
        base,
        "/api/auth/totp/verify",
        { challenge: "x", code: "123456" },
        { origin, ...JSON_TYPE },
      );
    const refused = await verifyFrom(EVIL);
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "CSRF_FAILED" } } });
    // From the app the request reaches the flow, which refuses the unknown challenge.
    const reached = await verifyFrom(TRUSTED);
    expect(reached).toMatchObject({ status: 401, body: { error: { code: "INVALID_CHALLENGE" } } });
  });
});
