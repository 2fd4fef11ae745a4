import { createPrivateKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { ConfigError } from "@svc/schema";
import {
  type BuiltinProviderId,
  builtinProviderIds,
  builtinProviders,
} from "./builtin-providers.js";
import { createOIDCProvider } from "./oidc.js";
import type { OAuthProvider } from "./provider.js";

/** The environment, as `process.env` holds it. */
export type OAuthEnv = Readonly<Record<string, string | undefined>>;

/** Options of `parseOAuthConfig`. */
export interface OAuthConfigOptions {
  /** The public address of the server (`SVC_PUBLIC_URL`); needed for the default redirects. */
  readonly publicURL?: string;
  /** Handed to the generic OpenID Connect providers (discovery and JWKS). */
  readonly fetch?: typeof fetch;
  /**
   * Told, one line each, of a provider left out because only one of its
   * client id and secret is set (the line names the unset variable).
   * Default: such warnings are dropped.
   */
  readonly onWarning?: (message: string) => void;
}

const OIDC_VARIABLE =
  /^SVC_OIDC_([A-Z0-9][A-Z0-9_]*?)_(ISSUER|CLIENT_ID|CLIENT_SECRET|REDIRECT|SCOPES)$/;
const TENANT = /^[A-Za-z0-9][A-Za-z0-9.-]*$/;
/** Apple team ids and key ids: ten upper-case letters or digits. */
const APPLE_ID = /^[A-Z0-9]{10}$/;
const APPLE = "SVC_OAUTH_APPLE";

function value(env: OAuthEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === "" ? undefined : raw;
}

function checkURL(variable: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(variable, `must be an absolute http(s) URL, got "${text}".`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConfigError(variable, `must be an absolute http(s) URL, got "${text}".`);
  }
  return text;
}

function parseScopes(variable: string, text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const scopes = text.split(/[\s,]+/).filter((scope) => scope !== "");
  if (scopes.length === 0) throw new ConfigError(variable, "must name at least one scope.");
  return scopes;
}

/**
 * The client id and secret, or undefined when either is unset: the spec
 * disables a provider whose client id or secret is unset. Half a pair is
 * probably a mistake, so it is reported through `warn`, naming the unset
 * variable (never the value of the one that is set).
 */
function credentials(
  env: OAuthEnv,
  prefix: string,
  id: string,
  warn: (message: string) => void,
): { clientId: string; clientSecret: string } | undefined {
  const clientId = value(env, `${prefix}_CLIENT_ID`);
  const clientSecret = value(env, `${prefix}_CLIENT_SECRET`);
  if (clientId !== undefined && clientSecret !== undefined) return { clientId, clientSecret };
  if (clientId !== undefined || clientSecret !== undefined) {
    const [unset, set] =
      clientId === undefined ? ["CLIENT_ID", "CLIENT_SECRET"] : ["CLIENT_SECRET", "CLIENT_ID"];
    warn(
      `${prefix}_${unset} is unset while ${prefix}_${set} is set: the ${id} provider is disabled and not listed by /api/auth/providers`,
    );
  }
  return undefined;
}

function redirectFor(
  env: OAuthEnv,
  prefix: string,
  id: string,
  publicURL: string | undefined,
): string {
  const variable = `${prefix}_REDIRECT`;
  const explicit = value(env, variable);
  if (explicit !== undefined) return checkURL(variable, explicit);
  if (publicURL === undefined) {
    throw new ConfigError(variable, "is unset and there is no SVC_PUBLIC_URL to derive it from.");
  }
  return `${publicURL}/api/auth/callback/${id}`;
}

/**
 * The enabled OAuth providers from the environment. For each built-in id
 * `<P>` (upper case): `SVC_OAUTH_<P>_CLIENT_ID`, `SVC_OAUTH_<P>_CLIENT_SECRET`,
 * `SVC_OAUTH_<P>_REDIRECT` (default `{publicURL}/api/auth/callback/<id>`)
 * and `SVC_OAUTH_<P>_SCOPES` (comma- or space-separated, replaces the
 * defaults); `SVC_OAUTH_MICROSOFT_TENANT` (default `common`). Apple takes
 * no client secret but `SVC_OAUTH_APPLE_CLIENT_ID` (the Services ID),
 * `_TEAM_ID`, `_KEY_ID` and `_PRIVATE_KEY` (the PEM text of the `.p8` key
 * or a path to it), all four or none; the key is checked at boot. For any
 * number of OpenID Connect providers `SVC_OIDC_<ID>_ISSUER`, `_CLIENT_ID`,
 * `_CLIENT_SECRET`, `_REDIRECT` and `_SCOPES`; the id is `<ID>` lower-cased.
 *
 * A provider whose client id or secret is unset is disabled (left out);
 * when only one of the two is set, `onWarning` hears of it, naming the
 * unset variable. Throws `ConfigError` naming the variable when some but
 * not all of Apple's four are set, a URL is malformed, an Apple id or key is
 * malformed (the key is never printed), `SVC_OAUTH_APPLE_CLIENT_SECRET` is
 * set, an OpenID Connect provider has no issuer, or a
 * redirect must be derived but `publicURL` is missing. OpenID Connect
 * providers come back undiscovered: call their `ready()` at boot.
 *
 * @example
 * const providers = parseOAuthConfig(process.env, { publicURL: process.env.SVC_PUBLIC_URL });
 */
export function parseOAuthConfig(env: OAuthEnv, options: OAuthConfigOptions = {}): OAuthProvider[] {
  const publicURL =
    options.publicURL === undefined || options.publicURL === ""
      ? undefined
      : checkURL("SVC_PUBLIC_URL", options.publicURL).replace(/\/+$/, "");
  const warn = options.onWarning ?? (() => undefined);
  const providers: OAuthProvider[] = [];
  for (const id of builtinProviderIds) {
    if (id === "apple") {
      const apple = appleFromEnv(env, publicURL);
      if (apple !== undefined) providers.push(apple);
      continue;
    }
    const prefix = `SVC_OAUTH_${id.toUpperCase()}`;
    const found = credentials(env, prefix, id, warn);
    if (found === undefined) continue;
    const scopes = parseScopes(`${prefix}_SCOPES`, value(env, `${prefix}_SCOPES`));
    const common = {
      ...found,
      redirectURI: redirectFor(env, prefix, id, publicURL),
      ...(scopes !== undefined && { scopes }),
    };
    providers.push(createBuiltin(id, common, env));
  }
  for (const id of oidcIds(env)) {
    const prefix = `SVC_OIDC_${id.toUpperCase()}`;
    const found = credentials(env, prefix, id, warn);
    if (found === undefined) continue;
    const issuer = value(env, `${prefix}_ISSUER`);
    if (issuer === undefined) {
      throw new ConfigError(`${prefix}_ISSUER`, "is unset while the client id and secret are set.");
    }
    const scopes = parseScopes(`${prefix}_SCOPES`, value(env, `${prefix}_SCOPES`));
    providers.push(
      createOIDCProvider({
        id,
        issuer: checkURL(`${prefix}_ISSUER`, issuer),
        ...found,
        redirectURI: redirectFor(env, prefix, id, publicURL),
        ...(scopes !== undefined && { scopes }),
        ...(options.fetch !== undefined && { fetch: options.fetch }),
      }),
    );
  }
  return providers;
}

function createBuiltin(
  id: Exclude<BuiltinProviderId, "apple">,
  common: { clientId: string; clientSecret: string; redirectURI: string; scopes?: string[] },
  env: OAuthEnv,
): OAuthProvider {
  if (id === "microsoft") {
    const tenant = value(env, "SVC_OAUTH_MICROSOFT_TENANT");
    if (tenant !== undefined && !TENANT.test(tenant)) {
      throw new ConfigError(
        "SVC_OAUTH_MICROSOFT_TENANT",
        `must be common, organizations, consumers, a tenant id or a domain, got "${tenant}".`,
      );
    }
    return builtinProviders.microsoft({ ...common, ...(tenant !== undefined && { tenant }) });
  }
  return builtinProviders[id](common);
}

/** Apple's variables that enable it, all four or none, in the order they are reported missing. */
const APPLE_VARIABLES = [
  `${APPLE}_CLIENT_ID`,
  `${APPLE}_TEAM_ID`,
  `${APPLE}_KEY_ID`,
  `${APPLE}_PRIVATE_KEY`,
] as const;

/**
 * Sign in with Apple from `SVC_OAUTH_APPLE_*`, or undefined when none of its
 * four variables is set. Apple's client secret is minted per exchange from
 * the key, so a configured `_CLIENT_SECRET` is refused.
 */
function appleFromEnv(env: OAuthEnv, publicURL: string | undefined): OAuthProvider | undefined {
  if (value(env, `${APPLE}_CLIENT_SECRET`) !== undefined) {
    throw new ConfigError(
      `${APPLE}_CLIENT_SECRET`,
      `must be unset: Apple's client secret is minted per sign-in from ${APPLE}_PRIVATE_KEY.`,
    );
  }
  const values = APPLE_VARIABLES.map((name) => value(env, name));
  if (values.every((found) => found === undefined)) return undefined;
  const missing = APPLE_VARIABLES.find((_, index) => values[index] === undefined);
  if (missing !== undefined) {
    throw new ConfigError(missing, "is unset while other SVC_OAUTH_APPLE_* variables are set.");
  }
  const [clientId, teamId, keyId, keySource] = values as [string, string, string, string];
  for (const [variable, id] of [
    [`${APPLE}_TEAM_ID`, teamId],
    [`${APPLE}_KEY_ID`, keyId],
  ] as const) {
    if (!APPLE_ID.test(id)) {
      throw new ConfigError(variable, `must be 10 upper-case letters or digits, got "${id}".`);
    }
  }
  const scopes = parseScopes(`${APPLE}_SCOPES`, value(env, `${APPLE}_SCOPES`));
  return builtinProviders.apple({
    clientId,
    teamId,
    keyId,
    privateKey: applePrivateKey(keySource),
    redirectURI: redirectFor(env, APPLE, "apple", publicURL),
    ...(scopes !== undefined && { scopes }),
  });
}

/**
 * The Apple key as PKCS#8 PEM, from inline PEM text (`\n` escapes allowed)
 * or a file; it must be an EC P-256 private key (ES256). Errors name the
 * variable and never print the key (or the value, which might be one).
 */
function applePrivateKey(source: string): string {
  const variable = `${APPLE}_PRIVATE_KEY`;
  let pem: string;
  if (source.startsWith("-----BEGIN")) {
    pem = source.replace(/\\n/g, "\n");
  } else {
    try {
      pem = readFileSync(source, "utf8");
    } catch {
      throw new ConfigError(
        variable,
        "is neither PEM text (-----BEGIN PRIVATE KEY-----) nor a readable file.",
      );
    }
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: "pem" });
  } catch {
    throw new ConfigError(
      variable,
      "is not a readable PEM private key (expected Apple's .p8 file).",
    );
  }
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    throw new ConfigError(variable, "must be an EC P-256 key (ES256), as Apple's .p8 keys are.");
  }
  return key.export({ type: "pkcs8", format: "pem" }).toString();
}

/** The lower-cased ids of every `SVC_OIDC_<ID>_*` variable set, sorted. */
function oidcIds(env: OAuthEnv): string[] {
  const ids = new Set<string>();
  for (const [name, raw] of Object.entries(env)) {
    if (raw === undefined || raw.trim() === "") continue;
    const match = OIDC_VARIABLE.exec(name);
    if (match?.[1] === undefined) continue;
    const id = match[1].toLowerCase();
    if (id in builtinProviders) {
      throw new ConfigError(name, `"${id}" is a built-in provider id; pick another OIDC id.`);
    }
    ids.add(id);
  }
  return [...ids].sort();
}

/**
 * Runs discovery for every OpenID Connect provider in `providers` (those
 * with a `ready()`), so their authorization URLs can be built; call it at
 * boot after `parseOAuthConfig`. Rejects with `PROVIDER_ERROR` when an
 * issuer cannot be discovered.
 *
 * @example
 * await prepareOAuthProviders(providers);
 */
export async function prepareOAuthProviders(providers: readonly OAuthProvider[]): Promise<void> {
  await Promise.all(
    providers.map((provider) => {
      const ready: unknown = (provider as { ready?: unknown }).ready;
      return typeof ready === "function"
        ? (ready as () => Promise<void>).call(provider)
        : undefined;
    }),
  );
}
