import type { BuiltinProviderId } from "../builtin-providers.js";
import type { Case } from "./provider-harness.js";

// The providers that take the client credentials in the form body and read
// the identity from a user-info call.

export const bodyAuthCases = {
  linkedin: {
    authPath: "/oauth/v2/authorization",
    tokenPath: "/oauth/v2/accessToken",
    pkce: false,
    nonce: false,
    scopes: ["openid", "profile", "email"],
    tokenAuth: "body",
    routes: {
      "/v2/userinfo": {
        sub: "li-1",
        name: "Ada Lovelace",
        picture: "https://li/a.png",
        email: "ada@li.dev",
        email_verified: true,
      },
    },
    identity: {
      providerUserId: "li-1",
      email: "ada@li.dev",
      emailVerified: true,
      name: "Ada Lovelace",
      avatarUrl: "https://li/a.png",
    },
    unverified: {
      routes: { "/v2/userinfo": { sub: "li-1", email: "ada@li.dev", email_verified: false } },
    },
  },
  facebook: {
    authPath: "/v24.0/dialog/oauth",
    tokenPath: "/v24.0/oauth/access_token",
    pkce: true,
    nonce: false,
    scopes: ["email", "public_profile"],
    tokenAuth: "body",
    routes: {
      "/v24.0/me": {
        id: "fb-1",
        name: "Ada",
        email: "ada@fb.dev",
        picture: { data: { url: "https://fb/a.png" } },
      },
    },
    // Facebook says nothing about the address: not verified.
    identity: {
      providerUserId: "fb-1",
      email: "ada@fb.dev",
      emailVerified: false,
      name: "Ada",
      avatarUrl: "https://fb/a.png",
    },
  },
  linear: {
    authPath: "/oauth/authorize",
    tokenPath: "/oauth/token",
    pkce: true,
    nonce: false,
    scopes: ["read"],
    scopeSeparator: ",",
    tokenAuth: "body",
    routes: {
      "POST /graphql": {
        data: {
          viewer: {
            id: "lin-1",
            name: "Ada Lovelace",
            displayName: "ada",
            email: "ada@lin.dev",
            avatarUrl: "https://lin/a.png",
          },
        },
      },
    },
    // Linear says nothing about the address: not verified.
    identity: {
      providerUserId: "lin-1",
      email: "ada@lin.dev",
      emailVerified: false,
      name: "Ada Lovelace",
      avatarUrl: "https://lin/a.png",
    },
  },
  atlassian: {
    authPath: "/authorize",
    tokenPath: "/oauth/token",
    pkce: true,
    nonce: false,
    scopes: ["read:me"],
    tokenAuth: "body",
    authParams: { audience: "api.atlassian.com", prompt: "consent" },
    routes: {
      "/me": {
        account_id: "5b10ac8d82e05b22cc7d4ef5",
        name: "Ada Lovelace",
        picture: "https://at/a.png",
        email: "ada@at.dev",
        email_verified: true,
      },
    },
    identity: {
      providerUserId: "5b10ac8d82e05b22cc7d4ef5",
      email: "ada@at.dev",
      emailVerified: true,
      name: "Ada Lovelace",
      avatarUrl: "https://at/a.png",
    },
    // No email_verified at all counts as not verified.
    unverified: {
      routes: { "/me": { account_id: "5b10ac8d82e05b22cc7d4ef5", email: "ada@at.dev" } },
    },
  },
  tiktok: {
    authPath: "/v2/auth/authorize/",
    tokenPath: "/v2/oauth/token/",
    pkce: true,
    nonce: false,
    scopes: ["user.info.basic"],
    scopeSeparator: ",",
    clientIdParam: "client_key",
    tokenAuth: "body",
    tokenExtra: { open_id: "tt-open-1" },
    routes: {
      "/v2/user/info/": {
        data: {
          user: { open_id: "tt-open-1", display_name: "ada", avatar_url: "https://tt/a.png" },
        },
        error: { code: "ok", message: "" },
      },
    },
    identity: {
      providerUserId: "tt-open-1",
      email: null,
      emailVerified: false,
      name: "ada",
      avatarUrl: "https://tt/a.png",
    },
  },
  kick: {
    authPath: "/oauth/authorize",
    tokenPath: "/oauth/token",
    pkce: true,
    nonce: false,
    scopes: ["user:read"],
    tokenAuth: "body",
    routes: {
      "/public/v1/users": {
        data: [
          {
            user_id: 123456,
            name: "ada",
            email: "ada@kick.dev",
            profile_picture: "https://kick/a.png",
          },
        ],
        message: "OK",
      },
    },
    // Kick says nothing about the address: not verified.
    identity: {
      providerUserId: "123456",
      email: "ada@kick.dev",
      emailVerified: false,
      name: "ada",
      avatarUrl: "https://kick/a.png",
    },
  },
} satisfies Partial<Record<BuiltinProviderId, Case>>;
