import { ConfigError } from "@svc/schema";

/** The environment as the config parsers read it (`process.env` fits). */
export type Env = Readonly<Record<string, string | undefined>>;

/** A variable's trimmed value and the name it was read from. */
export interface EnvValue {
  readonly name: string;
  readonly value: string | undefined;
}

/**
 * The trimmed value of `name`, or undefined when unset, empty or only
 * whitespace: orchestrators often template an absent secret as `""`, and a
 * stray newline from a secrets file should not count as a value.
 */
export function readEnv(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/**
 * Reads `override` and falls back to `general`, returning the name actually
 * read so an error can point at it. When both are unset the name is
 * `whenUnset` (default `general`), the variable an operator should set.
 */
export function readEnvWithOverride(
  env: Env,
  override: string,
  general: string,
  whenUnset: string = general,
): EnvValue {
  const overridden = readEnv(env, override);
  if (overridden !== undefined) return { name: override, value: overridden };
  const value = readEnv(env, general);
  return { name: value === undefined ? whenUnset : general, value };
}

/**
 * Parses an http(s) URL or throws a `ConfigError` on `name`. The value is
 * never echoed: a webhook address may carry a token in its query string.
 * Credentials in the URL are refused because fetch rejects them anyway, and
 * a key belongs in the API-key variable.
 */
export function parseHttpURL(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, "must be an absolute http:// or https:// URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(name, "must be an absolute http:// or https:// URL");
  }
  if (url.username !== "" || url.password !== "") {
    throw new ConfigError(name, "must not contain a user name or password");
  }
  return url;
}

/** True when `text` holds a control character (a newline included). */
export function hasControlCharacter(text: string): boolean {
  return /\p{Cc}/u.test(text);
}

/**
 * Returns `value` when it can travel in an HTTP header (no whitespace or
 * control characters), else throws a `ConfigError` on `name` that does not
 * echo it, since it is a secret.
 */
export function checkHeaderToken(name: string, value: string): string {
  if (/\s/.test(value) || hasControlCharacter(value)) {
    throw new ConfigError(name, "must be a single token without spaces or line breaks");
  }
  return value;
}
