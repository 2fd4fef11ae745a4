import { parseEmailConfig } from "@svc/auth-core";
import type { D1Database } from "./d1/d1-types.js";

/**
 * The Worker's bindings: the D1 database as `DB`, and the spec's variables
 * as vars or secrets (`wrangler secret put SVC_ADMIN_TOKEN`).
 */
export interface EdgeEnv {
  readonly DB: D1Database;
  readonly [name: string]: unknown;
}

/** The settings the edge reads from its bindings. */
export interface EdgeConfig {
  readonly adminToken: string;
  readonly authSecret: string;
  readonly devMode: boolean;
  readonly publicURL: string | undefined;
  readonly corsOrigins: readonly string[] | "*";
  readonly jwt: { secret: string | undefined; issuer: string | undefined; lifetimeSecs?: number };
  readonly email: ReturnType<typeof parseEmailConfig>;
  readonly bodyLimitBytes: number;
}

/** A binding that is wrong or missing; the message names it. */
export class EdgeConfigError extends Error {
  override readonly name = "EdgeConfigError";
}

/**
 * `fetch` for the email and SMS transports: workerd refuses `redirect:
 * "error"`, which they use so a provider's redirect is never followed with
 * the API key; "manual" plus a failure on any 3xx is the same.
 */
const edgeFetch: typeof fetch = async (input, init) => {
  if (init?.redirect !== "error") return fetch(input, init);
  const response = await fetch(input, { ...init, redirect: "manual" });
  if (response.status >= 300 && response.status < 400) {
    throw new TypeError(`fetch: the provider answered a redirect (${response.status})`);
  }
  return response;
};

function text(env: EdgeEnv, name: string): string | undefined {
  const value = env[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Reads the Worker's bindings. `SVC_ADMIN_TOKEN` is required (at least 32
 * characters); `SVC_AUTH_SECRET` keys codes and API keys (default: the admin
 * token, as on the server); `SVC_JWT_*`, `SVC_EMAIL_*` and `SVC_PUBLIC_URL`
 * mean what they mean on the server; `SVC_CORS_ORIGIN` (comma-separated, or
 * `*` in dev mode) overrides the manifest's trusted origins.
 */
export function parseEdgeConfig(env: EdgeEnv, trustedOrigins: readonly string[]): EdgeConfig {
  const adminToken = text(env, "SVC_ADMIN_TOKEN");
  if (adminToken === undefined || adminToken.length < 32) {
    throw new EdgeConfigError(
      "SVC_ADMIN_TOKEN must be set to at least 32 characters (wrangler secret put SVC_ADMIN_TOKEN).",
    );
  }
  const authSecret = text(env, "SVC_AUTH_SECRET") ?? adminToken;
  if (authSecret.length < 32) {
    throw new EdgeConfigError("SVC_AUTH_SECRET must be at least 32 characters.");
  }
  const devMode = text(env, "SVC_DEV_MODE") === "true";
  const lifetime = text(env, "SVC_JWT_LIFETIME_SECS");
  const lifetimeSecs = lifetime === undefined ? undefined : Number(lifetime);
  if (lifetimeSecs !== undefined && (!Number.isSafeInteger(lifetimeSecs) || lifetimeSecs <= 0)) {
    throw new EdgeConfigError("SVC_JWT_LIFETIME_SECS must be a positive whole number of seconds.");
  }
  const cors = text(env, "SVC_CORS_ORIGIN");
  if (cors === "*" && !devMode) {
    throw new EdgeConfigError("SVC_CORS_ORIGIN=* is refused outside dev mode.");
  }
  const limit = text(env, "SVC_BODY_LIMIT_BYTES");
  const strings: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (typeof value === "string") strings[name] = value;
  }
  return {
    adminToken,
    authSecret,
    devMode,
    publicURL: text(env, "SVC_PUBLIC_URL"),
    corsOrigins:
      cors === "*"
        ? "*"
        : cors === undefined
          ? trustedOrigins
          : cors.split(",").map((origin) => origin.trim()),
    jwt: {
      secret: text(env, "SVC_JWT_SECRET"),
      issuer: text(env, "SVC_JWT_ISSUER"),
      ...(lifetimeSecs !== undefined && { lifetimeSecs }),
    },
    email: parseEmailConfig(strings, { devMode, fetch: edgeFetch }),
    bodyLimitBytes: limit === undefined ? 1_048_576 : Number(limit),
  };
}
