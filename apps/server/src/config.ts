import { statSync } from "node:fs";
import { isIP } from "node:net";
import { resolve } from "node:path";
import { type AuthConfig, type EmailSettings, parseAuthConfig } from "@svc/auth-core";
import { type BillingConfig, parseBillingConfig } from "@svc/billing";
import { type FilesConfig, parseFilesConfig } from "@svc/files";
import { type OAuthProvider, parseOAuthConfig } from "@svc/oauth-providers";
import { ConfigError } from "@svc/schema";
import { z } from "zod";
import { parseAppEmailConfig } from "./app-email.js";
import { LOG_LEVELS, type LogFormat, type LogLevel } from "./logging/levels.js";

export { ConfigError };

const booleanVar = z
  .enum(["true", "false", "1", "0", "yes", "no", ""])
  .transform((value) => value === "true" || value === "1" || value === "yes");

const originList = z.string().transform((value) =>
  value
    .split(",")
    .map((origin) => origin.trim())
    .filter((origin) => origin !== ""),
);

/** A whole number from `min` to `max`, `fallback` when the variable is unset. */
const wholeNumber = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

// Each variable is parsed on its own so an error can name exactly one of them.
const variables = {
  SVC_PORT: wholeNumber(0, 65_532, 4321),
  SVC_HOST: z
    .string()
    .refine((host) => host === "localhost" || isIP(host) !== 0, "must be an IP address")
    .optional(),
  SVC_MANIFEST: z.string().min(1).default("svc.json"),
  SVC_DB_PATH: z.string().min(1).optional(),
  SVC_JOBS_DB: z.string().min(1).optional(),
  SVC_ADMIN_TOKEN: z
    .string()
    .min(64, "must be at least 64 characters (use 64 random bytes as hex)")
    .optional(),
  SVC_DEV_MODE: booleanVar.default(false),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  SVC_CORS_ORIGIN: originList.optional(),
  SVC_CSRF_ORIGINS: originList.optional(),
  SVC_PUBLIC_URL: z.url().optional(),
  SVC_DRAIN_SECS: z.coerce.number().min(0).max(3600).default(10),
  SVC_TRUST_PROXY: z
    .string()
    .regex(
      /^(true|false|\d{1,2}|[\w.:/-]+(\s*,\s*[\w.:/-]+)*)$/,
      "must be true, false, a hop count, or a comma-separated list of proxy addresses",
    )
    .optional(),
  // How long the sync change log keeps entries (a client offline longer
  // resyncs): a week and a million entries by default.
  SVC_SYNC_RETENTION_SECS: wholeNumber(60, 366 * 24 * 3600, 7 * 24 * 3600),
  SVC_SYNC_RETENTION_ENTRIES: wholeNumber(1000, 1_000_000_000, 1_000_000),
  SVC_BODY_LIMIT_BYTES: wholeNumber(1024, 64 * 1024 * 1024, 1024 * 1024),
  // Largest string or json value of a field without its own maxBytes, and
  // largest row (its string and json values together): 64 KiB and 1 MiB.
  SVC_MAX_FIELD_BYTES: wholeNumber(1, 64 * 1024 * 1024, 64 * 1024),
  SVC_MAX_ROW_BYTES: wholeNumber(1, 64 * 1024 * 1024, 1024 * 1024),
  SVC_LIVE_MAX_CONNECTIONS_PER_USER: wholeNumber(1, 100_000, 32),
  SVC_LIVE_MAX_CONNECTIONS_PER_IP: wholeNumber(1, 1_000_000, 256),
  SVC_LOG_LEVEL: z
    .enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` })
    .default("info"),
  SVC_LOG_FORMAT: z.enum(["json", "pretty"], { error: "must be json or pretty" }).optional(),
  SVC_ACCESS_LOG: z.enum(["on", "off"], { error: "must be on or off" }).default("on"),
  SVC_STUDIO_LOG_ENTRIES: wholeNumber(0, 1_000_000, 10_000),
} as const;

type Variables = typeof variables;
type ParsedVariables = { [K in keyof Variables]: z.infer<Variables[K]> };

/** The server's configuration, read once from the environment at boot. */
export interface ServerConfig {
  readonly port: number;
  /** Interface to listen on; all interfaces when undefined. */
  readonly host: string | undefined;
  /** Path of the manifest JSON file. */
  readonly manifestPath: string;
  /** SQLite file path, `:memory:`, or undefined for the default beside the manifest. */
  readonly dbPath: string | undefined;
  /**
   * The durable job queue's SQLite file (`SVC_JOBS_DB`), attached to the
   * application database; undefined for `<database file>.jobs.db` (in
   * memory when the database is). Ignored on Postgres, where jobs live in
   * the application database.
   */
  readonly jobsDbPath: string | undefined;
  /** Postgres connection string; selects Postgres over SQLite. */
  readonly databaseURL: string | undefined;
  /** The admin bearer; in dev mode it may be unset (a token file is made). */
  readonly adminToken: string | undefined;
  readonly devMode: boolean;
  /** Explicit CORS origins; the manifest's trusted origins when undefined. */
  readonly corsOrigins: readonly string[] | undefined;
  readonly csrfOrigins: readonly string[] | undefined;
  readonly publicURL: string | undefined;
  /** Upper bound, in seconds, of a programmatic graceful shutdown. */
  readonly drainSeconds: number;
  /** Largest accepted request body; larger ones answer 413. */
  readonly bodyLimitBytes: number;
  /**
   * The store's size bounds (`SVC_MAX_FIELD_BYTES`, `SVC_MAX_ROW_BYTES`):
   * larger values answer 413 `FIELD_TOO_LARGE`, larger rows `ROW_TOO_LARGE`.
   */
  readonly storeLimits: { readonly maxFieldBytes: number; readonly maxRowBytes: number };
  /** What the sync change log keeps (`SVC_SYNC_RETENTION_SECS`, `SVC_SYNC_RETENTION_ENTRIES`). */
  readonly syncRetention: { readonly maxAgeMs: number; readonly maxEntries: number };
  /**
   * Which reverse proxies to believe about the client address and protocol
   * (express's `trust proxy`): false (default), true, a hop count, or a list
   * of addresses/subnets such as `loopback, 10.0.0.0/8`.
   */
  readonly trustProxy: boolean | number | string;
  /**
   * Bounds of open live connections (WebSocket, SSE and rooms together):
   * per user (`SVC_LIVE_MAX_CONNECTIONS_PER_USER`, default 32) and per
   * client address, an IPv6 /64 counting as one (`SVC_LIVE_MAX_CONNECTIONS_PER_IP`, default 256).
   */
  readonly live: { readonly maxConnectionsPerUser: number; readonly maxConnectionsPerIp: number };
  /**
   * The server's log: lowest level written (`SVC_LOG_LEVEL`, default
   * `info`), `json` lines or `pretty` ones (`SVC_LOG_FORMAT`, default
   * `pretty` in dev mode, else `json`), and one line per request
   * (`SVC_ACCESS_LOG`, default on).
   */
  readonly logging: {
    readonly level: LogLevel;
    readonly format: LogFormat;
    readonly accessLog: boolean;
  };
  /**
   * The admin studio: requests its Logs page keeps in memory
   * (`SVC_STUDIO_LOG_ENTRIES`, default 10,000; 0 turns the page's log off).
   */
  readonly studio: { readonly logEntries: number };
  /** Sessions, sign-in flows, email, CAPTCHA, cookies and rate limits (@svc/auth-core). */
  readonly auth: AuthConfig;
  /**
   * The enabled OAuth and OpenID Connect providers (`SVC_OAUTH_*`,
   * `SVC_OIDC_*`); OpenID Connect ones still need discovery at boot.
   */
  readonly oauth: readonly OAuthProvider[];
  /** The payment processor (`SVC_PAYMENT_API_KEY`, `SVC_PAYMENT_WEBHOOK_SECRET`, `SVC_PAYMENT_API_BASE`). */
  readonly billing: BillingConfig;
  /**
   * File storage (`SVC_FILES_PROVIDER`, `SVC_FILES_DIR`, `SVC_FILES_URL_PREFIX`,
   * `SVC_FILES_MAX_BYTES`, `SVC_FILES_CONTENT_TYPES`, `SVC_S3_*`); the local
   * directory defaults to `<manifest dir>/.svc/files`.
   */
  readonly files: FilesConfig;
  /**
   * The application's email for `ctx.email` (`SVC_EMAIL_*`, never the
   * `SVC_AUTH_EMAIL_*` overrides, which are for auth flows only).
   */
  readonly email: EmailSettings;
  /**
   * Settings that are valid but probably not what the operator meant, one
   * line each naming the variable (an OAuth provider with only one of its
   * client id and secret, left out). Auth-core's own are in `auth.warnings`.
   */
  readonly warnings: readonly string[];
}

function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/**
 * Where OAuth redirect addresses are derived from: `SVC_PUBLIC_URL`, or in
 * dev mode on a fixed port the local address the README's walk-through uses.
 */
function oauthBaseURL(vars: ParsedVariables): string | undefined {
  if (vars.SVC_PUBLIC_URL !== undefined) return vars.SVC_PUBLIC_URL;
  return vars.SVC_DEV_MODE && vars.SVC_PORT !== 0 ? `http://localhost:${vars.SVC_PORT}` : undefined;
}

/**
 * Several settings wrong at once: `problems` holds one `ConfigError` each,
 * in the order found; `variable` is the first one's and `message` has one
 * line per problem.
 */
export class ConfigErrors extends ConfigError {
  readonly problems: readonly ConfigError[];

  constructor(problems: readonly [ConfigError, ...ConfigError[]]) {
    super(problems[0].variable, "");
    this.message = problems.map((problem) => problem.message).join("\n");
    this.problems = problems;
  }
}

/** What `parseConfig` checks besides the environment's values. */
export interface ParseConfigOptions {
  /**
   * Also refuse an `SVC_MANIFEST` that names no file, with the other
   * problems (`svc-server` does, so a first `pnpm start` lists everything
   * missing at once); default false, only the environment is read.
   */
  readonly checkManifest?: boolean;
}

/** The problem with the manifest path, when it names no file. */
function manifestProblem(path: string, unset: boolean): ConfigError | undefined {
  try {
    if (statSync(path).isFile()) return undefined;
  } catch {
    // Missing or unreadable: said below.
  }
  return new ConfigError(
    "SVC_MANIFEST",
    `cannot read ${resolve(path)}: no such file${unset ? " (SVC_MANIFEST is unset, so svc.json in the working directory; set it to your app's manifest)" : ""}`,
  );
}

/**
 * Parses the environment into a `ServerConfig`, and refuses the
 * combinations the spec forbids outside dev mode (`SVC_CORS_ORIGIN=*`, no
 * `SVC_ADMIN_TOKEN`). Every problem is reported at once: one is thrown as
 * the `ConfigError` naming its variable, several as a `ConfigErrors`
 * holding them all (each variable of the server's own, and the first
 * problem of each of auth, OAuth, billing, files and email).
 */
export function parseConfig(
  env: Readonly<Record<string, string | undefined>>,
  options: ParseConfigOptions = {},
): ServerConfig {
  const problems: ConfigError[] = [];
  /**
   * Runs one part of the parse; its `ConfigError` joins the others, once
   * (auth and the app's email both read `SVC_EMAIL_*`).
   */
  const collect = <T>(parse: () => T): T | undefined => {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      if (!problems.some((problem) => problem.message === error.message)) problems.push(error);
      return undefined;
    }
  };
  const parsed = {} as Record<string, unknown>;
  for (const [name, schema] of Object.entries(variables)) {
    const raw = env[name];
    const result = schema.safeParse(raw === "" && name !== "SVC_DEV_MODE" ? undefined : raw);
    if (result.success) parsed[name] = result.data;
    else problems.push(new ConfigError(name, result.error.issues[0]?.message ?? "is invalid"));
  }
  const vars = parsed as ParsedVariables;
  if (options.checkManifest === true && vars.SVC_MANIFEST !== undefined) {
    const problem = manifestProblem(vars.SVC_MANIFEST, (env.SVC_MANIFEST ?? "") === "");
    if (problem !== undefined) problems.push(problem);
  }
  // An invalid SVC_DEV_MODE says nothing of what was meant: no rule that depends on it.
  if (vars.SVC_DEV_MODE === false) {
    // (A token that is set but invalid was refused above.)
    if ("SVC_ADMIN_TOKEN" in parsed && vars.SVC_ADMIN_TOKEN === undefined) {
      problems.push(
        new ConfigError("SVC_ADMIN_TOKEN", "must be set outside dev mode (SVC_DEV_MODE=true)"),
      );
    }
    if (vars.SVC_CORS_ORIGIN?.includes("*")) {
      problems.push(new ConfigError("SVC_CORS_ORIGIN", "`*` is allowed only in dev mode"));
    }
  }
  const devMode = vars.SVC_DEV_MODE ?? false;
  const warnings: string[] = [];
  const auth = collect(() => parseAuthConfig(env, { devMode, publicURL: vars.SVC_PUBLIC_URL }));
  const oauth = collect(() =>
    parseOAuthConfig(env, {
      publicURL: oauthBaseURL(vars),
      onWarning: (message) => warnings.push(message),
    }),
  );
  const billing = collect(() => parseBillingConfig(env));
  const files = collect(() => parseFilesConfig(env));
  const email = collect(() => parseAppEmailConfig(env, { devMode }));
  const [first, ...more] = problems;
  if (first !== undefined) throw more.length === 0 ? first : new ConfigErrors([first, ...more]);
  if (
    auth === undefined ||
    oauth === undefined ||
    billing === undefined ||
    files === undefined ||
    email === undefined
  ) {
    throw new Error("unreachable: a part of the configuration failed without a problem");
  }
  return {
    port: vars.SVC_PORT,
    host: vars.SVC_HOST,
    manifestPath: vars.SVC_MANIFEST,
    dbPath: vars.SVC_DB_PATH,
    jobsDbPath: vars.SVC_JOBS_DB,
    databaseURL: vars.DATABASE_URL,
    adminToken: vars.SVC_ADMIN_TOKEN,
    devMode: vars.SVC_DEV_MODE,
    corsOrigins: vars.SVC_CORS_ORIGIN,
    csrfOrigins: vars.SVC_CSRF_ORIGINS,
    publicURL: vars.SVC_PUBLIC_URL,
    drainSeconds: vars.SVC_DRAIN_SECS,
    bodyLimitBytes: vars.SVC_BODY_LIMIT_BYTES,
    storeLimits: { maxFieldBytes: vars.SVC_MAX_FIELD_BYTES, maxRowBytes: vars.SVC_MAX_ROW_BYTES },
    syncRetention: {
      maxAgeMs: vars.SVC_SYNC_RETENTION_SECS * 1000,
      maxEntries: vars.SVC_SYNC_RETENTION_ENTRIES,
    },
    trustProxy: parseTrustProxy(vars.SVC_TRUST_PROXY),
    live: {
      maxConnectionsPerUser: vars.SVC_LIVE_MAX_CONNECTIONS_PER_USER,
      maxConnectionsPerIp: vars.SVC_LIVE_MAX_CONNECTIONS_PER_IP,
    },
    logging: {
      level: vars.SVC_LOG_LEVEL,
      format: vars.SVC_LOG_FORMAT ?? (vars.SVC_DEV_MODE ? "pretty" : "json"),
      accessLog: vars.SVC_ACCESS_LOG === "on",
    },
    studio: { logEntries: vars.SVC_STUDIO_LOG_ENTRIES },
    auth,
    oauth,
    billing,
    files,
    email,
    warnings,
  };
}
