import type { BuiltinProviderId } from "../builtin-providers.js";
import type { Case } from "./provider-harness.js";

// The providers whose identity is the ID token of the token response.

export const googleClaims = {
  iss: "https://accounts.google.com",
  sub: "g-1",
  email: "ada@gmail.com",
  email_verified: true,
  name: "Ada",
  picture: "https://img/ada.png",
};

const appleClaims = {
  iss: "https://appleid.apple.com",
  sub: "000792.ap1",
  email: "ada@privaterelay.appleid.com",
  // Apple sends the flag as a string as often as a boolean.
  email_verified: "true",
  is_private_email: "true",
};

const twitchClaims = {
  iss: "https://id.twitch.tv/oauth2",
  sub: "tw-7",
  email: "ada@tw.dev",
  email_verified: true,
  preferred_username: "ada_streams",
  picture: "https://tw/a.png",
};

export const idTokenCases = {
  google: {
    authPath: "/o/oauth2/v2/auth",
    tokenPath: "/token",
    pkce: true,
    nonce: true,
    scopes: ["openid", "email", "profile"],
    idToken: googleClaims,
    routes: {},
    identity: {
      providerUserId: "g-1",
      email: "ada@gmail.com",
      emailVerified: true,
      name: "Ada",
      avatarUrl: "https://img/ada.png",
    },
    unverified: { idToken: { ...googleClaims, email_verified: false }, routes: {} },
  },
  apple: {
    authPath: "/auth/authorize",
    tokenPath: "/auth/token",
    pkce: true,
    nonce: true,
    scopes: ["name", "email"],
    tokenAuth: "body",
    mintedSecret: true,
    responseMode: "form_post",
    idToken: appleClaims,
    routes: {},
    params: { user: JSON.stringify({ name: { firstName: "Ada", lastName: "Lovelace" } }) },
    identity: {
      providerUserId: "000792.ap1",
      email: "ada@privaterelay.appleid.com",
      emailVerified: true,
      name: "Ada Lovelace",
    },
    // Sign in with Apple at Work & School: the address is not verified.
    unverified: { idToken: { ...appleClaims, email_verified: "false" }, routes: {} },
  },
  microsoft: {
    authPath: "/common/oauth2/v2.0/authorize",
    tokenPath: "/common/oauth2/v2.0/token",
    pkce: true,
    nonce: true,
    scopes: ["openid", "email", "profile"],
    idToken: {
      iss: "https://login.microsoftonline.com/t/v2.0",
      sub: "ms-1",
      email: "ada@contoso.com",
      name: "Ada",
    },
    routes: {},
    // Entra asserted nothing about the address: not verified.
    identity: {
      providerUserId: "ms-1",
      email: "ada@contoso.com",
      emailVerified: false,
      name: "Ada",
    },
  },
  slack: {
    authPath: "/openid/connect/authorize",
    tokenPath: "/api/openid.connect.token",
    pkce: false,
    nonce: true,
    scopes: ["openid", "email", "profile"],
    idToken: {
      iss: "https://slack.com",
      sub: "U1",
      email: "ada@s.dev",
      email_verified: true,
      name: "Ada",
    },
    routes: {},
    identity: { providerUserId: "U1", email: "ada@s.dev", emailVerified: true, name: "Ada" },
  },
  twitch: {
    authPath: "/oauth2/authorize",
    tokenPath: "/oauth2/token",
    pkce: false,
    nonce: true,
    scopes: ["openid", "user:read:email"],
    tokenAuth: "body",
    authParams: {
      claims: JSON.stringify({
        id_token: { email: null, email_verified: null, picture: null, preferred_username: null },
      }),
    },
    idToken: twitchClaims,
    routes: {},
    identity: {
      providerUserId: "tw-7",
      email: "ada@tw.dev",
      emailVerified: true,
      name: "ada_streams",
      avatarUrl: "https://tw/a.png",
    },
    unverified: { idToken: { ...twitchClaims, email_verified: false }, routes: {} },
  },
  vercel: {
    authPath: "/oauth/authorize",
    tokenPath: "/login/oauth/token",
    pkce: true,
    nonce: true,
    scopes: ["openid", "email", "profile"],
    idToken: {
      iss: "https://vercel.com",
      sub: "vc-1",
      email: "ada@v.dev",
      name: "Ada",
      preferred_username: "ada",
      picture: "https://v/a.png",
    },
    routes: {},
    // Vercel's ID token has no email_verified claim: not verified.
    identity: {
      providerUserId: "vc-1",
      email: "ada@v.dev",
      emailVerified: false,
      name: "Ada",
      avatarUrl: "https://v/a.png",
    },
  },
} satisfies Partial<Record<BuiltinProviderId, Case>>;
