import type { BuiltinProviderId } from "../builtin-providers.js";
import type { Case } from "./provider-harness.js";

// The providers authenticated with HTTP Basic whose identity is a user-info
// call (or the token response itself, for Notion).

export const userInfoCases = {
  github: {
    authPath: "/login/oauth/authorize",
    tokenPath: "/login/oauth/access_token",
    pkce: true,
    nonce: false,
    scopes: ["read:user", "user:email"],
    routes: {
      "/user": { id: 42, login: "ada", name: null, avatar_url: "https://gh/a.png", email: null },
      "/user/emails": [
        { email: "other@x.dev", primary: false, verified: true },
        { email: "ada@x.dev", primary: true, verified: true },
      ],
    },
    identity: {
      providerUserId: "42",
      email: "ada@x.dev",
      emailVerified: true,
      name: "ada",
      avatarUrl: "https://gh/a.png",
    },
  },
  discord: {
    authPath: "/oauth2/authorize",
    tokenPath: "/api/oauth2/token",
    pkce: true,
    nonce: false,
    scopes: ["identify", "email"],
    routes: {
      "/api/users/@me": {
        id: "80351110224678912",
        username: "ada",
        global_name: "Ada L",
        avatar: "8342729096ea3675442027381ff50dfe",
        email: "ada@d.dev",
        verified: true,
      },
    },
    identity: {
      providerUserId: "80351110224678912",
      email: "ada@d.dev",
      emailVerified: true,
      name: "Ada L",
      avatarUrl: "FAKE/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png",
    },
  },
  gitlab: {
    authPath: "/oauth/authorize",
    tokenPath: "/oauth/token",
    pkce: true,
    nonce: false,
    scopes: ["read_user"],
    routes: {
      "/api/v4/user": {
        id: 7,
        username: "ada",
        name: "Ada",
        avatar_url: "https://gl/a.png",
        email: "ada@gl.dev",
        confirmed_at: "2020-01-01T00:00:00Z",
      },
    },
    identity: {
      providerUserId: "7",
      email: "ada@gl.dev",
      emailVerified: true,
      name: "Ada",
      avatarUrl: "https://gl/a.png",
    },
  },
  spotify: {
    authPath: "/authorize",
    tokenPath: "/api/token",
    pkce: true,
    nonce: false,
    scopes: ["user-read-email"],
    routes: {
      "/v1/me": {
        id: "sp1",
        display_name: "Ada",
        email: "ada@sp.dev",
        images: [{ url: "https://sp/a.png" }],
      },
    },
    identity: {
      providerUserId: "sp1",
      email: "ada@sp.dev",
      emailVerified: false,
      name: "Ada",
      avatarUrl: "https://sp/a.png",
    },
  },
  twitter: {
    authPath: "/i/oauth2/authorize",
    tokenPath: "/2/oauth2/token",
    pkce: true,
    nonce: false,
    scopes: ["users.read", "tweet.read"],
    routes: { "/2/users/me": { data: { id: "tw1", name: "Ada", username: "ada" } } },
    identity: { providerUserId: "tw1", email: null, emailVerified: false, name: "Ada" },
  },
  reddit: {
    authPath: "/api/v1/authorize",
    tokenPath: "/api/v1/access_token",
    pkce: false,
    nonce: false,
    scopes: ["identity"],
    routes: { "/api/v1/me": { id: "rd1", name: "ada", icon_img: "https://rd/a.png?x=1" } },
    identity: {
      providerUserId: "rd1",
      email: null,
      emailVerified: false,
      name: "ada",
      avatarUrl: "https://rd/a.png",
    },
  },
  notion: {
    authPath: "/v1/oauth/authorize",
    tokenPath: "/v1/oauth/token",
    pkce: false,
    nonce: false,
    scopes: [],
    authParams: { owner: "user" },
    tokenExtra: {
      owner: { type: "user", user: { id: "n1", name: "Ada", person: { email: "ada@n.dev" } } },
    },
    routes: {},
    identity: { providerUserId: "n1", email: "ada@n.dev", emailVerified: false, name: "Ada" },
  },
  zoom: {
    authPath: "/oauth/authorize",
    tokenPath: "/oauth/token",
    pkce: true,
    nonce: false,
    scopes: ["user:read:user"],
    routes: {
      "/v2/users/me": {
        id: "zJKyaiAyTNC",
        email: "ada@z.dev",
        display_name: "Ada L",
        first_name: "Ada",
        last_name: "Lovelace",
        pic_url: "https://z/a.png",
        verified: 1,
      },
    },
    identity: {
      providerUserId: "zJKyaiAyTNC",
      email: "ada@z.dev",
      emailVerified: true,
      name: "Ada L",
      avatarUrl: "https://z/a.png",
    },
    unverified: {
      routes: { "/v2/users/me": { id: "zJKyaiAyTNC", email: "ada@z.dev", verified: 0 } },
    },
  },
  salesforce: {
    authPath: "/services/oauth2/authorize",
    tokenPath: "/services/oauth2/token",
    pkce: true,
    nonce: false,
    scopes: ["openid", "email", "profile"],
    routes: {
      "/services/oauth2/userinfo": {
        user_id: "005x",
        email: "ada@sf.dev",
        email_verified: true,
        name: "Ada",
      },
    },
    identity: { providerUserId: "005x", email: "ada@sf.dev", emailVerified: true, name: "Ada" },
  },
  figma: {
    authPath: "/oauth",
    tokenPath: "/v1/oauth/token",
    pkce: true,
    nonce: false,
    scopes: ["current_user:read"],
    routes: {
      "/v1/me": { id: "f1", handle: "ada", email: "ada@f.dev", img_url: "https://f/a.png" },
    },
    identity: {
      providerUserId: "f1",
      email: "ada@f.dev",
      emailVerified: false,
      name: "ada",
      avatarUrl: "https://f/a.png",
    },
  },
  dropbox: {
    authPath: "/oauth2/authorize",
    tokenPath: "/oauth2/token",
    pkce: true,
    nonce: false,
    scopes: ["account_info.read"],
    routes: {
      "POST /2/users/get_current_account": {
        account_id: "dbid:AAH4f99",
        name: { display_name: "Ada Lovelace" },
        email: "ada@db.dev",
        email_verified: true,
        profile_photo_url: "https://db/a.png",
      },
    },
    identity: {
      providerUserId: "dbid:AAH4f99",
      email: "ada@db.dev",
      emailVerified: true,
      name: "Ada Lovelace",
      avatarUrl: "https://db/a.png",
    },
    unverified: {
      routes: {
        "POST /2/users/get_current_account": {
          account_id: "dbid:AAH4f99",
          email: "ada@db.dev",
          email_verified: false,
        },
      },
    },
  },
  paypal: {
    authPath: "/signin/authorize",
    tokenPath: "/v1/oauth2/token",
    pkce: false,
    nonce: false,
    scopes: ["openid", "email", "profile"],
    routes: {
      "/v1/identity/openidconnect/userinfo": {
        user_id: "https://www.paypal.com/webapps/auth/identity/user/pp1",
        name: "Ada Lovelace",
        email: "ada@pp.dev",
        email_verified: true,
        verified_account: true,
      },
    },
    identity: {
      providerUserId: "https://www.paypal.com/webapps/auth/identity/user/pp1",
      email: "ada@pp.dev",
      emailVerified: true,
      name: "Ada Lovelace",
    },
    // A verified PayPal account (bank or card) says nothing about the address.
    unverified: {
      routes: {
        "/v1/identity/openidconnect/userinfo": {
          user_id: "https://www.paypal.com/webapps/auth/identity/user/pp1",
          email: "ada@pp.dev",
          email_verified: false,
          verified_account: true,
        },
      },
    },
  },
  roblox: {
    authPath: "/oauth/v1/authorize",
    tokenPath: "/oauth/v1/token",
    pkce: true,
    nonce: true,
    scopes: ["openid", "profile"],
    routes: { "/oauth/v1/userinfo": { sub: "rb1", name: "Ada", picture: "https://rb/a.png" } },
    identity: {
      providerUserId: "rb1",
      email: null,
      emailVerified: false,
      name: "Ada",
      avatarUrl: "https://rb/a.png",
    },
  },
} satisfies Partial<Record<BuiltinProviderId, Case>>;
