import { ConfigError } from "@svc/schema";
import type { BlobStore } from "./blob-store.js";
import { DEFAULT_FILES_MAX_BYTES } from "./create-files.js";
import { createLocalBlobStore, DEFAULT_FILES_URL_PREFIX } from "./local-blob-store.js";
import { createS3BlobStore, type S3BlobStoreOptions } from "./s3-blob-store.js";

type Env = Readonly<Record<string, string | undefined>>;

/** File storage settings from the environment; see `parseFilesConfig`. */
export interface FilesConfig {
  /** `SVC_FILES_PROVIDER`: `local` (default) or `s3`. */
  readonly provider: "local" | "s3";
  /** `SVC_FILES_DIR`: the uploads directory (local); undefined for the app's default. */
  readonly dir: string | undefined;
  /** `SVC_FILES_URL_PREFIX`: where files are served, default `/api/files`. */
  readonly urlPrefix: string;
  /** `SVC_FILES_MAX_BYTES` (svc's own): the largest file, default 50 MiB. */
  readonly maxBytes: number;
  /** `SVC_FILES_CONTENT_TYPES` (svc's own): accepted types, comma-separated; undefined allows any. */
  readonly allowedContentTypes: readonly string[] | undefined;
  /** The `SVC_S3_*` settings when the provider is `s3`. */
  readonly s3: S3BlobStoreOptions | undefined;
}

function envValue(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === "" ? undefined : value;
}

function required(env: Env, name: string): string {
  const value = envValue(env, name);
  if (value === undefined) throw new ConfigError(name, "must be set when SVC_FILES_PROVIDER is s3");
  if (/[\s\p{Cc}]/u.test(value)) {
    throw new ConfigError(name, "must not contain whitespace or control characters");
  }
  return value;
}

function httpURL(env: Env, name: string): string | undefined {
  const value = envValue(env, name);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, "must be an absolute http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(name, "must be an absolute http(s) URL");
  }
  return value.replace(/\/+$/, "");
}

/**
 * Reads `SVC_FILES_*` and `SVC_S3_*`. The `s3` provider takes its bucket
 * and keys from the environment only and never falls back to local disk:
 * a missing one throws a `ConfigError` naming it, which stops the boot.
 *
 * @example
 * const config = parseFilesConfig(process.env);
 */
export function parseFilesConfig(env: Env): FilesConfig {
  const provider = envValue(env, "SVC_FILES_PROVIDER") ?? "local";
  if (provider !== "local" && provider !== "s3") {
    throw new ConfigError(
      "SVC_FILES_PROVIDER",
      "must be local or s3 (the spec's hosted provider is not available)",
    );
  }
  const urlPrefix = (envValue(env, "SVC_FILES_URL_PREFIX") ?? DEFAULT_FILES_URL_PREFIX).replace(
    /\/+$/,
    "",
  );
  // Under /api/ the app's gate resolves the caller that reads need.
  if (!/^\/api(\/[A-Za-z0-9._~-]+)+$/.test(urlPrefix) || urlPrefix.includes("/..")) {
    throw new ConfigError("SVC_FILES_URL_PREFIX", "must be a path under /api/, such as /api/files");
  }
  const maxRaw = envValue(env, "SVC_FILES_MAX_BYTES");
  const maxBytes = maxRaw === undefined ? DEFAULT_FILES_MAX_BYTES : Number(maxRaw);
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new ConfigError("SVC_FILES_MAX_BYTES", "must be a positive whole number of bytes");
  }
  const types = envValue(env, "SVC_FILES_CONTENT_TYPES")
    ?.split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  const s3: S3BlobStoreOptions | undefined =
    provider === "s3"
      ? {
          bucket: required(env, "SVC_S3_BUCKET"),
          accessKeyId: required(env, "SVC_S3_ACCESS_KEY"),
          secretAccessKey: required(env, "SVC_S3_SECRET_KEY"),
          sessionToken: envValue(env, "SVC_S3_SESSION_TOKEN"),
          region: envValue(env, "SVC_S3_REGION") ?? "us-east-1",
          endpoint: httpURL(env, "SVC_S3_ENDPOINT"),
        }
      : undefined;
  return {
    provider,
    dir: envValue(env, "SVC_FILES_DIR"),
    urlPrefix,
    maxBytes,
    allowedContentTypes: types !== undefined && types.length > 0 ? types : undefined,
    s3,
  };
}

/**
 * The blob store a `FilesConfig` names: the local directory (`dir`, else
 * `defaultDir`) or the S3 bucket. `secret` signs local upload tokens (give
 * every server of a deployment the same one); default random per process.
 */
export function createBlobStoreFromConfig(
  config: FilesConfig,
  options: { readonly defaultDir: string; readonly secret?: string; readonly now?: () => number },
): BlobStore {
  if (config.provider === "s3" && config.s3 !== undefined) return createS3BlobStore(config.s3);
  return createLocalBlobStore({
    dir: config.dir ?? options.defaultDir,
    urlPrefix: config.urlPrefix,
    // A label keeps these tokens apart from anything else the secret signs.
    ...(options.secret !== undefined && { secret: `svc-files-upload:${options.secret}` }),
    ...(options.now !== undefined && { now: options.now }),
  });
}
