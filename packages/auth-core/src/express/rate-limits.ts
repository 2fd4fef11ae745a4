import { createHash } from "node:crypto";
import type { Request, RequestHandler } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import type { AuthDatabase } from "../auth-database.js";
import type { CaptchaVerifier } from "../captcha/captcha-verifier.js";
import { rateLimited } from "../errors.js";
import { accountLockout, type LockoutSubject } from "./account-lockout.js";
import { DatabaseRateLimitStore } from "./rate-limit-store.js";
import { getAuth } from "./request-auth.js";

/** One limit: at most `limit` requests per `windowMs`. */
export interface LimitRule {
  readonly limit: number;
  readonly windowMs: number;
}

/** The sign-in limiter's settings; the defaults are documented in the README. */
export interface RateLimitOptions {
  readonly database: AuthDatabase;
  /** Per client address, over every sign-in endpoint. Default 60 per minute. */
  readonly perIp?: LimitRule;
  /**
   * Per email or phone number named in the request *and* client address
   * (every request counts), so one caller's attempts never hold back
   * another's; the same rule counts per signed-in user where the secret is
   * checked for the caller (`password/change`). Default 20 per 15 minutes.
   */
  readonly perAccount?: LimitRule;
  /**
   * Failed attempts on one account from every address together, on the
   * endpoints that check a password or a 6-digit code; past it only an
   * address that signed in to the account before (or, with `captcha`, a
   * caller with a solved challenge) goes on (see `accountLockout`).
   * Default 100 per 15 minutes.
   */
  readonly accountLockout?: LimitRule;
  /** How long an address that signed in to an account passes its lockout. Default 30 days. */
  readonly knownAddressMs?: number;
  /** The CAPTCHA a caller past the account lockout may solve instead of waiting. */
  readonly captcha?: CaptchaVerifier | undefined;
  readonly now?: () => number;
}

export const DEFAULT_PER_IP: LimitRule = { limit: 60, windowMs: 60_000 };
export const DEFAULT_PER_ACCOUNT: LimitRule = { limit: 20, windowMs: 15 * 60_000 };
export const DEFAULT_ACCOUNT_LOCKOUT: LimitRule = { limit: 100, windowMs: 15 * 60_000 };
export const DEFAULT_KNOWN_ADDRESS_MS = 30 * 24 * 3600 * 1000;

/** The account a request names: in the body, or the query of a link's GET (trimmed, lower-cased). */
function accountOf(req: Request): string | undefined {
  const source = (req.method === "GET" ? req.query : req.body) as
    | Record<string, unknown>
    | undefined;
  const account = source?.email ?? source?.phone;
  return typeof account === "string" && account.trim() !== ""
    ? account.trim().toLowerCase().slice(0, 320)
    : undefined;
}

function addressOf(req: Request): string {
  return ipKeyGenerator(req.ip ?? "unknown");
}

function subjectOf(req: Request): LockoutSubject | undefined {
  const account = accountOf(req);
  return account === undefined ? undefined : { account, address: addressOf(req) };
}

function limiter(
  rule: LimitRule,
  options: RateLimitOptions,
  prefix: string,
  key: (req: Request) => string | undefined,
): RequestHandler {
  return rateLimit({
    windowMs: rule.windowMs,
    limit: rule.limit,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    // Keys are computed here (IPv6 grouped by /56 through ipKeyGenerator).
    validate: false,
    store: new DatabaseRateLimitStore(options.database, {
      prefix,
      ...(options.now && { now: options.now }),
    }),
    skip: (req) => key(req) === undefined,
    keyGenerator: (req) => key(req) ?? "",
    handler: (req, res, next) => {
      // The limiter set its own Retry-After from the real clock; the error
      // below carries the one that matches retry_after_secs.
      res.removeHeader("Retry-After");
      const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const now = options.now?.() ?? Date.now();
      next(
        rateLimited(reset === undefined ? rule.windowMs / 1000 : (reset.getTime() - now) / 1000),
      );
    },
  });
}

/**
 * The sign-in limiters: per client address; per account named in the body
 * and client address; per signed-in user (the caller `authenticate`
 * resolved; it must run first), which shares the per-account rule under
 * its own counters; and the account-wide lockout on failed attempts, which
 * a stranger cannot turn against the owner (see `accountLockout`).
 */
export function createRateLimits(options: RateLimitOptions): {
  perIp: RequestHandler;
  perAccount: RequestHandler;
  perUser: RequestHandler;
  accountLockout: RequestHandler;
} {
  const lockout = options.accountLockout ?? DEFAULT_ACCOUNT_LOCKOUT;
  return {
    accountLockout: accountLockout(
      {
        database: options.database,
        limit: lockout.limit,
        windowMs: lockout.windowMs,
        knownAddressMs: options.knownAddressMs ?? DEFAULT_KNOWN_ADDRESS_MS,
        captcha: options.captcha,
        ...(options.now !== undefined && { now: options.now }),
      },
      subjectOf,
    ),
    perUser: limiter(
      options.perAccount ?? DEFAULT_PER_ACCOUNT,
      options,
      "user:",
      (req) => getAuth(req).userId ?? undefined,
    ),
    perIp: limiter(options.perIp ?? DEFAULT_PER_IP, options, "ip:", addressOf),
    // Regression: keyed by the account alone, 20 wrong guesses from
    // anywhere (spoofed or many addresses) locked the owner out too.
    perAccount: limiter(options.perAccount ?? DEFAULT_PER_ACCOUNT, options, "pair:", (req) => {
      const subject = subjectOf(req);
      return subject === undefined
        ? undefined
        : createHash("sha256").update(`${subject.account}\n${subject.address}`).digest("base64url");
    }),
  };
}
