import { type FakeReply, type FakeServer, startFakeServer } from "@svc/tooling/http-server";
import { exportPKCS8, exportSPKI, generateKeyPair, SignJWT } from "jose";
import { type BuiltinProviderId, builtinProviders } from "../builtin-providers.js";
import type { OAuthIdentity, OAuthProvider } from "../provider.js";

// Test support for the built-in providers: fixed credentials, a fake of a
// provider's endpoints on 127.0.0.1 and the per-provider expectations
// (`Case`), shared by the provider test files.

export const CLIENT_ID = "client-id-123";
export const CLIENT_SECRET = "client-secret-never-leaked";
export const REDIRECT = "https://app.example/api/auth/callback/x";
export const STATE = "state-abc";
export const VERIFIER = "v".repeat(43);
export const NONCE = "nonce-xyz";
export const ACCESS_TOKEN = "access-token-1";
export const APPLE_TEAM_ID = "TEAM123456";
export const APPLE_KEY_ID = "KEY1234567";

/** A JWS in compact form: three base64url parts. */
export const COMPACT_JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** Every endpoint role any provider has, all pointed at the fake. */
export const ROLES = [
  "accounts",
  "token",
  "web",
  "api",
  "login",
  "discord",
  "cdn",
  "gitlab",
  "slack",
  "appleid",
  "id",
  "graph",
  "zoom",
  "auth",
];

/** The Apple key the test providers mint client secrets with. */
const appleKeys = await generateKeyPair("ES256", { extractable: true });
export const APPLE_PRIVATE_KEY = await exportPKCS8(appleKeys.privateKey);
export const APPLE_PUBLIC_KEY = await exportSPKI(appleKeys.publicKey);

/** What one built-in provider is expected to do against the fake. */
export interface Case {
  readonly authPath: string;
  readonly tokenPath: string;
  readonly pkce: boolean;
  readonly nonce: boolean;
  readonly scopes: readonly string[];
  /** Scope separator in the authorization URL; default a space. */
  readonly scopeSeparator?: string;
  /** Name of the client id parameter; default `client_id`. */
  readonly clientIdParam?: string;
  /** Client credentials in the form body instead of HTTP Basic. */
  readonly tokenAuth?: "body";
  /** The client secret is a JWT minted per exchange (Apple). */
  readonly mintedSecret?: boolean;
  readonly responseMode?: "form_post";
  /** Further parameters the authorization URL must carry. */
  readonly authParams?: Readonly<Record<string, string>>;
  /** Claims of the ID token the token endpoint returns, if any. */
  readonly idToken?: Record<string, unknown>;
  /** Extra fields of the token response. */
  readonly tokenExtra?: Record<string, unknown>;
  /** Path (without query) to JSON body; `POST /path` for a POST, else GET. */
  readonly routes: Record<string, unknown>;
  /** Callback parameters handed to `validateCallback`. */
  readonly params?: Readonly<Record<string, string>>;
  readonly identity: Omit<OAuthIdentity, "provider">;
  /** The same answers without the provider vouching for the address: `emailVerified` false. */
  readonly unverified?: Pick<Case, "idToken" | "routes">;
}

/** An ID token as the token endpoint returns it; the built-ins only decode it. */
export async function idTokenFor(claims: Record<string, unknown>, nonce = NONCE): Promise<string> {
  // The built-ins read the ID token straight from the token endpoint over
  // TLS, so the signature is not what is under test here.
  return new SignJWT({ aud: CLIENT_ID, nonce, ...claims })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(new TextEncoder().encode("unrelated key, only decoded"));
}

/** Every role pointed at `url`. */
export function allEndpoints(url: string): Record<string, string> {
  return Object.fromEntries(ROLES.map((role) => [role, url]));
}

/** A built-in provider with the test credentials (Apple: the test key instead of a secret). */
export function createTestProvider(
  id: BuiltinProviderId,
  extra: { endpoints?: Record<string, string>; scopes?: readonly string[] } = {},
): OAuthProvider {
  const common = { clientId: CLIENT_ID, redirectURI: REDIRECT, ...extra };
  if (id === "apple") {
    return builtinProviders.apple({
      ...common,
      teamId: APPLE_TEAM_ID,
      keyId: APPLE_KEY_ID,
      privateKey: APPLE_PRIVATE_KEY,
    });
  }
  return builtinProviders[id]({ ...common, clientSecret: CLIENT_SECRET });
}

function routeKey(method: string, path: string): string {
  return method === "GET" ? path : `${method} ${path}`;
}

/** A provider wired to a fresh fake that answers as `spec` says. */
export interface FakeProvider {
  readonly url: string;
  readonly provider: OAuthProvider;
  readonly requests: FakeServer["requests"];
}

/**
 * Starts a fake for `spec` (token endpoint and user-info routes) and the
 * provider `id` pointed at it. `tokenReply` replaces the token answer;
 * `idTokenNonce` signs the ID token for another nonce; `variant` swaps the
 * ID token claims and routes.
 */
export async function startProvider(
  id: BuiltinProviderId,
  spec: Case,
  options: {
    tokenReply?: FakeReply;
    idTokenNonce?: string;
    variant?: Pick<Case, "idToken" | "routes">;
  } = {},
): Promise<FakeProvider> {
  const idToken = options.variant?.idToken ?? spec.idToken;
  const routes = options.variant?.routes ?? spec.routes;
  const token = options.tokenReply ?? {
    status: 200,
    body: JSON.stringify({
      access_token: ACCESS_TOKEN,
      token_type: "Bearer",
      ...(idToken && { id_token: await idTokenFor(idToken, options.idTokenNonce ?? NONCE) }),
      ...spec.tokenExtra,
    }),
  };
  const fake = await startFakeServer((request) => {
    const path = request.path.split("?")[0] ?? "";
    if (request.method === "POST" && path === spec.tokenPath) return token;
    const key = routeKey(request.method, path);
    if (key in routes) {
      if (request.headers.authorization !== `Bearer ${ACCESS_TOKEN}`) return { status: 401 };
      return { status: 200, body: JSON.stringify(routes[key]) };
    }
    return { status: 404, body: "{}" };
  });
  const provider = createTestProvider(id, { endpoints: allEndpoints(fake.url) });
  return { url: fake.url, provider, requests: fake.requests };
}
