import { join } from "node:path";
import type { Manifest } from "@svc/schema";
import { ConfigError, type ServerConfig } from "./config.js";
import { readOrCreateDevAdminToken } from "./dev-admin-token.js";
import { policyLintWarnings } from "./policy-lint-warnings.js";

/** What the boot settles before it opens anything. */
export interface BootSettings {
  /** The admin token in force: `SVC_ADMIN_TOKEN`, or in dev mode one kept in a file. */
  readonly adminToken: string;
  /** Where the dev-mode admin token is kept; undefined when `SVC_ADMIN_TOKEN` is set. */
  readonly adminTokenFile: string | undefined;
  /** Origins allowed by CORS: `SVC_CORS_ORIGINS`, else the manifest's trusted origins. */
  readonly corsOrigins: readonly string[];
  /**
   * Who may sign in and change things with the session cookie: any origin
   * in dev mode; else `SVC_CSRF_ORIGINS` (or the trusted origins) plus the
   * public address's origin, which a proxy that rewrites `Host` hides.
   */
  readonly csrfOrigins: true | readonly string[];
  /** Valid settings that are probably not what the operator meant, one line each. */
  readonly warnings: readonly string[];
}

/** `origins` plus the origin of `url` (when given and not listed yet). */
function withOrigin(origins: readonly string[], url: string | undefined): readonly string[] {
  if (url === undefined || !URL.canParse(url)) return origins;
  const { origin } = new URL(url);
  return origins.includes(origin) ? origins : [...origins, origin];
}

/**
 * Checks what the configuration and the manifest must agree on, and settles
 * the admin token and the trusted origins. Throws `ConfigError` naming what
 * to fix.
 */
export async function settleBoot(
  config: ServerConfig,
  manifest: Manifest,
  manifestDir: string,
): Promise<BootSettings> {
  if (!config.devMode && manifest.auth.trustedOrigins.length === 0) {
    throw new ConfigError(
      "SVC_MANIFEST",
      "declares no auth.trustedOrigins; outside dev mode at least one trusted origin is required",
    );
  }
  const adminTokenFile =
    config.adminToken === undefined ? join(manifestDir, ".svc", "admin-token") : undefined;
  const adminToken =
    config.adminToken ?? (await readOrCreateDevAdminToken(adminTokenFile as string));
  const corsOrigins = config.corsOrigins ?? manifest.auth.trustedOrigins;
  return {
    adminToken,
    adminTokenFile,
    corsOrigins,
    csrfOrigins: config.devMode
      ? true
      : withOrigin(config.csrfOrigins ?? manifest.auth.trustedOrigins, config.publicURL),
    warnings: [
      ...config.warnings,
      ...config.auth.warnings,
      ...(config.devMode ? policyLintWarnings(manifest) : []),
      ...(config.databaseURL === undefined && config.auth.sessionDbPath === undefined
        ? [
            "sessions, API keys, codes and rate limits are kept in memory (SVC_SESSION_DB is unset): everyone is signed out and every API key is gone when the server stops",
          ]
        : []),
    ],
  };
}
