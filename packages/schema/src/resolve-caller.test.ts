import { describe, expect, it } from "vitest";
import { adminAuth, createAuthContext } from "./auth-context.js";
import { defineErrors } from "./define-errors.js";
import {
  type CallerRequest,
  type CallerRequestInfo,
  type CallerResolver,
  resolveCaller,
} from "./resolve-caller.js";

class TestError extends defineErrors("TestError", {
  INVALID_API_KEY: { status: 401, message: "The API key is not valid." },
}) {}

const alice = createAuthContext({ userId: "alice", via: "session", sessionId: "s1" });
const bob = createAuthContext({ userId: "bob", via: "api-key" });

function request(headers: CallerRequest["headers"] = {}, extra: Partial<CallerRequest> = {}) {
  return { headers, ...extra };
}

/** A resolver that accepts one token and records every token it was asked about. */
function accepting(token: string, caller: typeof alice, asked: string[]): CallerResolver {
  return (presented) => {
    asked.push(`${caller.userId ?? "admin"}:${presented}`);
    return presented === token ? caller : null;
  };
}

describe("resolveCaller", () => {
  it("tries the bearer resolvers in order; the first that answers wins", async () => {
    const asked: string[] = [];
    const resolvers = [
      accepting("admin-token", adminAuth, asked),
      accepting("pk.bob", bob, asked),
      accepting("pk.bob", alice, asked),
    ];
    const found = await resolveCaller(request({ authorization: "Bearer pk.bob" }), { resolvers });
    expect(found).toEqual({ status: "bearer", caller: bob });
    // The third resolver, which would also accept the token, is never asked.
    expect(asked).toEqual(["admin:pk.bob", "bob:pk.bob"]);
  });

  it("waits for resolvers that answer with a promise, in order", async () => {
    const resolvers: CallerResolver[] = [
      async () => null,
      async (token) => (token === "svc_a" ? alice : null),
    ];
    const found = await resolveCaller(request({ authorization: "bearer   svc_a " }), {
      resolvers,
    });
    expect(found).toEqual({ status: "bearer", caller: alice });
  });

  it("rejects a bearer token no resolver accepts, without reading the cookie", async () => {
    let cookieRead = false;
    const found = await resolveCaller(
      request({ authorization: "Bearer nobody", cookie: "svc_session=svc_a" }),
      {
        resolvers: [() => null],
        cookie: {
          name: "svc_session",
          resolve: async () => {
            cookieRead = true;
            return alice;
          },
        },
      },
    );
    expect(found).toEqual({ status: "rejected" });
    expect(cookieRead).toBe(false);
  });

  it.each(["Basic abc", "Bearer", "Bearer a b", "token"])(
    "calls the header %j malformed, even with a bearer elsewhere",
    async (authorization) => {
      const found = await resolveCaller(request({ authorization }), {
        resolvers: [() => alice],
        bearer: "svc_a",
      });
      expect(found).toEqual({ status: "malformed" });
    },
  );

  it("throws on what a resolver throws (a bad token of its kind never falls through)", async () => {
    const resolvers: CallerResolver[] = [
      (token) => {
        if (token.startsWith("pk.")) throw new TestError("INVALID_API_KEY");
        return null;
      },
      () => alice,
    ];
    await expect(
      resolveCaller(request({ authorization: "Bearer pk.bad" }), { resolvers }),
    ).rejects.toMatchObject({ code: "INVALID_API_KEY", status: 401 });
  });

  it("uses options.bearer when there is no Authorization header, and the header when there is", async () => {
    const resolvers = [accepting("from-header", alice, []), accepting("from-protocol", bob, [])];
    await expect(
      resolveCaller(request({ authorization: "" }), { resolvers, bearer: "from-protocol" }),
    ).resolves.toEqual({ status: "bearer", caller: bob });
    await expect(
      resolveCaller(request({ authorization: "Bearer from-header" }), {
        resolvers,
        bearer: "from-protocol",
      }),
    ).resolves.toEqual({ status: "bearer", caller: alice });
  });

  describe("without a bearer token", () => {
    const cookie = {
      name: "svc_session",
      resolve: async (token: string) => (token === "svc_good" ? alice : null),
    };

    it("falls back to the session cookie", async () => {
      const found = await resolveCaller(
        request({ cookie: "theme=dark; svc_session=svc_good; svc_session=svc_other" }),
        { resolvers: [() => bob], cookie },
      );
      expect(found).toEqual({ status: "cookie", caller: alice });
    });

    it("calls a cookie that does not resolve stale, and the caller anonymous", async () => {
      const found = await resolveCaller(request({ cookie: "svc_session=svc_gone" }), {
        resolvers: [],
        cookie,
      });
      expect(found).toEqual({ status: "anonymous", staleCookie: true });
    });

    it.each([
      ["no cookie header", {}],
      ["another cookie", { cookie: "svc_session_other=svc_good" }],
      ["an empty cookie", { cookie: "svc_session=" }],
    ])("is anonymous with %s", async (_name, headers) => {
      const found = await resolveCaller(request(headers), { resolvers: [() => bob], cookie });
      expect(found).toEqual({ status: "anonymous", staleCookie: false });
    });

    it("is anonymous when no cookie is configured, whatever the request sends", async () => {
      const found = await resolveCaller(request({ cookie: "svc_session=svc_good" }), {
        resolvers: [() => bob],
      });
      expect(found).toEqual({ status: "anonymous", staleCookie: false });
    });
  });

  it("tells resolvers the address, user agent and cookie on demand", async () => {
    const seen: CallerRequestInfo[] = [];
    const resolvers: CallerResolver[] = [
      (_token, info) => {
        seen.push({ ip: info.ip, userAgent: info.userAgent, cookie: info.cookie });
        return alice;
      },
    ];
    const headers = { authorization: "Bearer t", "user-agent": "ua/1", cookie: "a=b" };
    await resolveCaller(request(headers, { ip: "203.0.113.9", socket: { remoteAddress: "::1" } }), {
      resolvers,
    });
    // A bare Node request (a WebSocket upgrade) has no `ip`: the socket's address is used.
    await resolveCaller(request(headers, { socket: { remoteAddress: "::1" } }), { resolvers });
    expect(seen).toEqual([
      { ip: "203.0.113.9", userAgent: "ua/1", cookie: "a=b" },
      { ip: "::1", userAgent: "ua/1", cookie: "a=b" },
    ]);
  });

  it("leaves the request as it was: the caller is returned, never written onto it", async () => {
    const req = request({ authorization: "Bearer t" });
    const before = Reflect.ownKeys(req);
    await resolveCaller(req, { resolvers: [() => alice] });
    expect(Reflect.ownKeys(req)).toEqual(before);
    expect(Reflect.ownKeys(req.headers)).toEqual(["authorization"]);
  });
});
