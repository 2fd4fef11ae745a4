import type { Request, RequestHandler } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import type { AuthDatabase } from "../auth-database.js";
import { rateLimited } from "../errors.js";
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
   * Per email or phone number, on the endpoints that check a secret; the
   * same rule counts per signed-in user where the secret is checked for
   * the caller (`password/change`). Default 20 per 15 minutes.
   */
  readonly perAccount?: LimitRule;
  readonly now?: () => number;
}

export const DEFAULT_PER_IP: LimitRule = { limit: 60, windowMs: 60_000 };
export const DEFAULT_PER_ACCOUNT: LimitRule = { limit: 20, windowMs: 15 * 60_000 };

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
 * The sign-in limiters: per client address, per account named in the body,
 * and per signed-in user (the caller `authenticate` resolved; it must run
 * first), which shares the per-account rule under its own counters.
 */
export function createRateLimits(options: RateLimitOptions): {
  perIp: RequestHandler;
  perAccount: RequestHandler;
  perUser: RequestHandler;
} {
  return {
    perUser: limiter(
      options.perAccount ?? DEFAULT_PER_ACCOUNT,
      options,
      "user:",
      (req) => getAuth(req).userId ?? undefined,
    ),
    perIp: limiter(options.perIp ?? DEFAULT_PER_IP, options, "ip:", (req) =>
      ipKeyGenerator(req.ip ?? "unknown"),
    ),
    perAccount: limiter(options.perAccount ?? DEFAULT_PER_ACCOUNT, options, "account:", (req) => {
      // The account a request names: in the body, or the query of a link's GET.
      const source = (req.method === "GET" ? req.query : req.body) as
        | Record<string, unknown>
        | undefined;
      const account = source?.email ?? source?.phone;
      return typeof account === "string" && account.trim() !== ""
        ? account.trim().toLowerCase().slice(0, 320)
        : undefined;
    }),
  };
}
