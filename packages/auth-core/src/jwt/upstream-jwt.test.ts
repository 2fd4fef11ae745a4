import { ConfigError, createAuthContext } from "@svc/schema";
import {
  closeFakeServers,
  type FakeServer,
  refusedURL,
  startFakeServer,
} from "@svc/tooling/http-server";
import { thrownBy } from "@svc/tooling/thrown";
import {
  type CryptoKey,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  type JWTPayload,
  SignJWT,
  UnsecuredJWT,
} from "jose";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { JWTError } from "./jwt-errors.js";
import { createJWTService } from "./jwt-service.js";
import {
  createUpstreamJWTVerifier,
  parseUpstreamJWTConfig,
  type UpstreamJWTOptions,
  type UpstreamJWTVerifier,
  upstreamResolver,
} from "./upstream-jwt.js";

afterEach(closeFakeServers);

const ISSUER = "https://login.example.com/";
const AUDIENCE = "svc-app";
const NOW = 1_700_000_000;
const now = (): number => NOW * 1000;

interface Signer {
  readonly alg: "RS256" | "ES256";
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
}

let rsa: Signer;
let ec: Signer;
let stranger: Signer;

beforeAll(async () => {
  const make = async (alg: "RS256" | "ES256", kid: string): Promise<Signer> => ({
    alg,
    kid,
    ...(await generateKeyPair(alg)),
  });
  [rsa, ec, stranger] = await Promise.all([
    make("RS256", "rsa-1"),
    make("ES256", "ec-1"),
    make("RS256", "rsa-1"),
  ]);
});

/** Serves the RS256 and ES256 public keys as a JWKS on 127.0.0.1. */
async function serveKeySet(): Promise<FakeServer> {
  const keys = await Promise.all(
    [rsa, ec].map(async ({ alg, kid, publicKey }) => ({
      ...(await exportJWK(publicKey)),
      kid,
      alg,
      use: "sig",
    })),
  );
  return startFakeServer((request) =>
    request.path === "/.well-known/jwks.json"
      ? { status: 200, body: JSON.stringify({ keys }) }
      : { status: 404, body: "{}" },
  );
}

async function verifierFor(
  server: FakeServer,
  options: Partial<UpstreamJWTOptions> = {},
): Promise<UpstreamJWTVerifier> {
  return createUpstreamJWTVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwksURL: new URL(`${server.url}/.well-known/jwks.json`),
    now,
    ...options,
  });
}

interface TokenOptions {
  readonly signer?: Signer;
  readonly kid?: string;
  readonly claims?: JWTPayload;
  readonly issuer?: string;
  readonly audience?: string;
  readonly exp?: number | undefined;
}

function upstreamToken(options: TokenOptions = {}): Promise<string> {
  const signer = options.signer ?? rsa;
  const jwt = new SignJWT({ sub: "upstream_user", roles: ["editor"], ...options.claims })
    .setProtectedHeader({ alg: signer.alg, kid: options.kid ?? signer.kid, typ: "JWT" })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt(NOW);
  if (!("exp" in options) || options.exp !== undefined) {
    jwt.setExpirationTime(options.exp ?? NOW + 600);
  }
  return jwt.sign(signer.privateKey);
}

async function rejection(promise: Promise<unknown>): Promise<JWTError> {
  const error = await promise.then(
    () => {
      throw new Error("expected INVALID_JWT");
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(JWTError);
  expect(error).toMatchObject({ code: "INVALID_JWT", status: 401, expose: true });
  return error as JWTError;
}

describe("createUpstreamJWTVerifier", () => {
  it.each(["RS256", "ES256"] as const)(
    "accepts an %s token of the upstream issuer",
    async (alg) => {
      const server = await serveKeySet();
      const verifier = await verifierFor(server);
      const token = await upstreamToken({ signer: alg === "RS256" ? rsa : ec });
      expect(await verifier.verify(token)).toEqual(
        createAuthContext({ userId: "upstream_user", roles: ["editor"], via: "jwt" }),
      );
    },
  );

  it.each<[string, unknown]>([
    ["missing", undefined],
    ["a string", "admin"],
    ["not all strings", ["admin", 1]],
    ["an object", { admin: true }],
  ])("gives no roles when the roles claim is %s", async (_name, roles) => {
    const verifier = await verifierFor(await serveKeySet());
    const token = await upstreamToken({ claims: { roles } as JWTPayload });
    expect((await verifier.verify(token)).roles).toEqual([]);
  });

  it("fetches the key set once and caches it", async () => {
    const server = await serveKeySet();
    const verifier = await verifierFor(server);
    await verifier.verify(await upstreamToken());
    await verifier.verify(await upstreamToken({ signer: ec }));
    expect(server.requests.map((r) => r.path)).toEqual(["/.well-known/jwks.json"]);
  });

  it("fetches through the injected fetch", async () => {
    const server = await serveKeySet();
    const urls: string[] = [];
    const verifier = await verifierFor(server, {
      fetch: (input, init) => {
        urls.push(String(input));
        return fetch(input, init);
      },
    });
    await verifier.verify(await upstreamToken());
    expect(urls).toEqual([`${server.url}/.well-known/jwks.json`]);
  });

  it.each<[string, () => Promise<string>]>([
    ["a wrong audience", () => upstreamToken({ audience: "another-app" })],
    ["a wrong issuer", () => upstreamToken({ issuer: "https://evil.example/" })],
    ["an unknown kid", () => upstreamToken({ kid: "rsa-2" })],
    ["a known kid but another key", () => upstreamToken({ signer: stranger })],
    ["an ES256 header with the RSA key's kid", () => upstreamToken({ signer: ec, kid: "rsa-1" })],
    ["expired 5 s ago (the tolerance)", () => upstreamToken({ exp: NOW - 5 })],
    ["no exp", () => upstreamToken({ exp: undefined })],
    ["no sub", () => upstreamToken({ claims: { sub: undefined } })],
    ["an empty sub", () => upstreamToken({ claims: { sub: "" } })],
    ["not yet valid", () => upstreamToken({ claims: { nbf: NOW + 60 } })],
    [
      "an HS256 token",
      () =>
        new SignJWT({ sub: "upstream_user" })
          .setProtectedHeader({ alg: "HS256", kid: "rsa-1" })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime(NOW + 600)
          .sign(new TextEncoder().encode("a-shared-secret-0123456789abcdef")),
    ],
    [
      "an HS256 token keyed with the RSA public key's PEM (key confusion)",
      async () =>
        new SignJWT({ sub: "upstream_user" })
          .setProtectedHeader({ alg: "HS256", kid: "rsa-1" })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime(NOW + 600)
          .sign(new TextEncoder().encode(await exportSPKI(rsa.publicKey))),
    ],
    [
      "an unsecured alg none token",
      async () =>
        new UnsecuredJWT({ sub: "upstream_user" })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime(NOW + 600)
          .encode(),
    ],
    ["a tampered payload", async () => tamper(await upstreamToken(), { roles: ["admin"] })],
    ["garbage", async () => "not.a.jwt"],
    ["an oversized token", async () => `${await upstreamToken()}${"A".repeat(8192)}`],
  ])("refuses %s", async (_name, token) => {
    const verifier = await verifierFor(await serveKeySet());
    await rejection(verifier.verify(await token()));
  });

  it("tolerates clock skew on exp up to clockToleranceSecs", async () => {
    const server = await serveKeySet();
    const token = await upstreamToken({ exp: NOW - 4 });
    expect((await (await verifierFor(server)).verify(token)).userId).toBe("upstream_user");
    await rejection((await verifierFor(server, { clockToleranceSecs: 0 })).verify(token));
  });

  it("refuses every token when the key set cannot be fetched", async () => {
    const verifier = createUpstreamJWTVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksURL: new URL(`${await refusedURL()}/jwks.json`),
      now,
    });
    await rejection(verifier.verify(await upstreamToken()));
  });

  it.each([-1, 6, Number.NaN])("refuses clockToleranceSecs %s", async (clockToleranceSecs) => {
    await expect(verifierFor(await serveKeySet(), { clockToleranceSecs })).rejects.toThrow(
      RangeError,
    );
  });
});

function tamper(token: string, changes: Record<string, unknown>): string {
  const [header, payload, signature] = token.split(".");
  const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString()) as object;
  const forged = Buffer.from(JSON.stringify({ ...claims, ...changes })).toString("base64url");
  return `${header}.${forged}.${signature}`;
}

describe("upstreamResolver", () => {
  const SVC_ISSUER = "https://svc.example";
  const own = createJWTService({
    secret: "service-secret-0123456789abcdef-0123",
    issuer: SVC_ISSUER,
    now,
  });

  async function chain(server: FakeServer) {
    const resolveUpstream = upstreamResolver(await verifierFor(server), SVC_ISSUER);
    const resolveOwn = own.resolver();
    return async (token: string) => (await resolveUpstream(token)) ?? resolveOwn(token);
  }

  it("claims only tokens whose unverified iss is the upstream issuer", async () => {
    const server = await serveKeySet();
    const resolve = upstreamResolver(await verifierFor(server), SVC_ISSUER);
    expect(await resolve(await upstreamToken())).toMatchObject({ userId: "upstream_user" });
    expect(await resolve(own.mint({ userId: "u1", roles: [] }).token)).toBeNull();
    expect(await resolve(await upstreamToken({ issuer: "https://elsewhere.example/" }))).toBeNull();
    for (const token of ["svc_0123", "a.b", "a.b.c", "..", "pk.key_abcdefgh.secret"]) {
      expect(await resolve(token)).toBeNull();
    }
  });

  it("verifies what it claims and never lets it fall through", async () => {
    const server = await serveKeySet();
    const resolve = upstreamResolver(await verifierFor(server));
    await rejection(resolve(await upstreamToken({ audience: "another-app" })));
    await rejection(resolve(tamper(await upstreamToken(), { roles: ["admin"] })));
  });

  it("does not fetch the key set for tokens it does not claim", async () => {
    const server = await serveKeySet();
    const resolve = upstreamResolver(await verifierFor(server));
    await resolve(own.mint({ userId: "u1", roles: [] }).token);
    await resolve("a.b.c");
    expect(server.requests).toEqual([]);
  });

  it("leaves svc's own tokens to the HS256 resolver in the chain", async () => {
    const resolve = await chain(await serveKeySet());
    expect(await resolve(own.mint({ userId: "u1", roles: ["member"] }).token)).toEqual(
      createAuthContext({ userId: "u1", roles: ["member"], via: "jwt" }),
    );
    expect(await resolve(await upstreamToken())).toMatchObject({ userId: "upstream_user" });
    // A token that claims svc's issuer but is RS256-signed by the upstream key goes to HS256 and fails.
    await expect(resolve(await upstreamToken({ issuer: SVC_ISSUER }))).rejects.toMatchObject({
      code: "INVALID_JWT",
    });
  });

  it("refuses an upstream issuer equal to svc's own", async () => {
    const verifier = await verifierFor(await serveKeySet());
    expect(() => upstreamResolver(verifier, ISSUER)).toThrow(ConfigError);
  });
});

describe("parseUpstreamJWTConfig", () => {
  const full = {
    SVC_JWT_UPSTREAM_ISSUER: ISSUER,
    SVC_JWT_UPSTREAM_AUDIENCE: AUDIENCE,
    SVC_JWT_UPSTREAM_JWKS_URL: "https://login.example.com/.well-known/jwks.json",
  };

  function configError(env: Record<string, string | undefined>): ConfigError {
    return thrownBy(ConfigError, () => parseUpstreamJWTConfig(env));
  }

  it.each<[Record<string, string | undefined>]>([
    [{}],
    [
      {
        SVC_JWT_UPSTREAM_ISSUER: "",
        SVC_JWT_UPSTREAM_AUDIENCE: " ",
        SVC_JWT_UPSTREAM_JWKS_URL: "",
      },
    ],
  ])("leaves the plugin off for %j", (env) => {
    expect(parseUpstreamJWTConfig(env)).toBeUndefined();
  });

  it("reads all three", () => {
    expect(parseUpstreamJWTConfig(full)).toEqual({
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksURL: new URL(full.SVC_JWT_UPSTREAM_JWKS_URL),
    });
  });

  it.each<[string, Record<string, string | undefined>, string]>([
    ["only the issuer", { SVC_JWT_UPSTREAM_ISSUER: ISSUER }, "SVC_JWT_UPSTREAM_AUDIENCE"],
    ["only the audience", { SVC_JWT_UPSTREAM_AUDIENCE: AUDIENCE }, "SVC_JWT_UPSTREAM_ISSUER"],
    [
      "only the URL",
      { SVC_JWT_UPSTREAM_JWKS_URL: full.SVC_JWT_UPSTREAM_JWKS_URL },
      "SVC_JWT_UPSTREAM_ISSUER",
    ],
    ["no URL", { ...full, SVC_JWT_UPSTREAM_JWKS_URL: undefined }, "SVC_JWT_UPSTREAM_JWKS_URL"],
    ["no audience", { ...full, SVC_JWT_UPSTREAM_AUDIENCE: "" }, "SVC_JWT_UPSTREAM_AUDIENCE"],
    ["no issuer", { ...full, SVC_JWT_UPSTREAM_ISSUER: " " }, "SVC_JWT_UPSTREAM_ISSUER"],
  ])("refuses %s, naming the first missing variable", (_name, env, variable) => {
    const error = configError(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toBe(
      `${variable}: must be set too: the upstream JWT plugin needs all of SVC_JWT_UPSTREAM_ISSUER, SVC_JWT_UPSTREAM_AUDIENCE, SVC_JWT_UPSTREAM_JWKS_URL, or none`,
    );
  });

  it.each([
    "http://localhost/jwks.json",
    "http://localhost:8080/jwks.json",
    "http://127.0.0.1:9999/jwks.json",
    "http://[::1]/jwks.json",
    "https://keys.example.com/jwks",
  ])("accepts the key set URL %s", (url) => {
    expect(parseUpstreamJWTConfig({ ...full, SVC_JWT_UPSTREAM_JWKS_URL: url })?.jwksURL.href).toBe(
      new URL(url).href,
    );
  });

  it.each([
    "http://login.example.com/jwks.json",
    "http://localhost.example.com/jwks.json",
    "http://127.0.0.2/jwks.json",
    "ftp://login.example.com/jwks.json",
    "https://user:pass@login.example.com/jwks.json",
    "/relative/jwks.json",
    "not a url",
  ])("refuses the key set URL %s", (url) => {
    expect(configError({ ...full, SVC_JWT_UPSTREAM_JWKS_URL: url }).variable).toBe(
      "SVC_JWT_UPSTREAM_JWKS_URL",
    );
  });
});
