import type { OAuthProvider } from "@svc/oauth-providers";
import { ConfigError } from "./config.js";

/**
 * Runs OpenID Connect discovery for every generic provider, so a wrong or
 * unreachable issuer stops the boot with the variable to fix.
 */
export async function discoverProviders(providers: readonly OAuthProvider[]): Promise<void> {
  await Promise.all(
    providers.map(async (provider) => {
      if (provider.kind !== "oidc" || !("ready" in provider)) return;
      try {
        await (provider as OAuthProvider & { ready(): Promise<void> }).ready();
      } catch {
        throw new ConfigError(
          `SVC_OIDC_${provider.id.toUpperCase()}_ISSUER`,
          "could not be discovered (no valid /.well-known/openid-configuration at that address)",
        );
      }
    }),
  );
}
