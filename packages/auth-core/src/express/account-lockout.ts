import { createHash } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import type { AuthDatabase } from "../auth-database.js";
import type { CaptchaVerifier } from "../captcha/captcha-verifier.js";
import { AuthError, rateLimited } from "../errors.js";
import { bodyOf } from "./json-body.js";
import { DatabaseRateLimitStore } from "./rate-limit-store.js";

/** The account-wide lockout's settings; the defaults are documented in the README. */
export interface AccountLockoutOptions {
  readonly database: AuthDatabase;
  /** Failed attempts on one account, from every address together. Default 100 per 15 minutes. */
  readonly limit: number;
  readonly windowMs: number;
  /**
   * How long an address that signed in to an account keeps passing that
   * account's lockout. Default 30 days.
   */
  readonly knownAddressMs: number;
  /** When set, a caller past the limit from an unknown address may pass with a solved CAPTCHA. */
  readonly captcha?: CaptchaVerifier | undefined;
  readonly now?: () => number;
}

/** What the lockout needs from a request: the account it names and the caller's address key. */
export interface LockoutSubject {
  /** The account named (email or phone, trimmed and lower-cased). */
  readonly account: string;
  /** The client address as the limiters key it (IPv6 grouped by /56). */
  readonly address: string;
}

/** A key that names an account (and an address) without storing either in clear. */
function digest(...parts: readonly string[]): string {
  return createHash("sha256").update(parts.join("\n")).digest("base64url");
}

/**
 * The account-wide lockout on the endpoints that check a secret: failed
 * attempts on one account are counted over every client address, and past
 * `limit` in a window only callers who cannot be a stranger go on: an
 * address that signed in to this account within `knownAddressMs`, or (when
 * a CAPTCHA is configured) a caller with a solved challenge in
 * `captchaToken`; anyone else gets `429 RATE_LIMITED` until the window
 * ends (`CAPTCHA_FAILED` when a CAPTCHA is configured). So strangers cannot
 * lock the owner out (the per-account-and-address limit holds each of them
 * back on its own), and guessing stays bounded by `limit` per window.
 *
 * Each attempt is counted as a failure before it runs; a 2xx or 3xx answer
 * (a session, or a second-factor challenge: the secret was right) takes it
 * back and marks the caller's address as known for the account, and so
 * does a 5xx (the server failed, not the caller).
 */
export function accountLockout(
  options: AccountLockoutOptions,
  subjectOf: (req: Request) => LockoutSubject | undefined,
): RequestHandler {
  const now = options.now ?? Date.now;
  const failures = new DatabaseRateLimitStore(options.database, {
    prefix: "fail:",
    windowMs: options.windowMs,
    now,
  });
  const known = new DatabaseRateLimitStore(options.database, {
    prefix: "known:",
    windowMs: options.knownAddressMs,
    now,
  });
  // Outcomes still being written, by account: the next attempt on the
  // account waits for them, so on one server it always sees the last
  // answer's effect (a success is written after its response is sent).
  const settling = new Map<string, Promise<unknown>>();
  const admit = async (req: Request, subject: LockoutSubject): Promise<void> => {
    const account = digest(subject.account);
    await settling.get(account);
    const counted = await failures.get(account);
    if (counted !== undefined && counted.totalHits >= options.limit) {
      const knownAddress = await known.get(digest(subject.account, subject.address));
      if (knownAddress === undefined) {
        if (options.captcha === undefined) {
          throw rateLimited(
            ((counted.resetTime?.getTime() ?? now() + options.windowMs) - now()) / 1000,
          );
        }
        if (!(await options.captcha.verify(bodyOf(req).captchaToken, req.ip))) {
          throw new AuthError("CAPTCHA_FAILED");
        }
      }
    }
    await failures.increment(account);
  };
  const settle = (res: Response, subject: LockoutSubject): void => {
    if (res.statusCode >= 400 && res.statusCode < 500) return;
    const account = digest(subject.account);
    const undo = failures.decrement(account);
    const remember =
      res.statusCode < 400 ? known.mark(digest(subject.account, subject.address)) : undefined;
    // A write that fails here errs on the safe side: the attempt stays
    // counted, or the address stays unknown.
    const written = Promise.all([settling.get(account), undo, remember]).catch(() => undefined);
    settling.set(account, written);
    void written.then(() => {
      if (settling.get(account) === written) settling.delete(account);
    });
  };
  return (req, res, next) => {
    const subject = subjectOf(req);
    if (subject === undefined) {
      next();
      return;
    }
    admit(req, subject).then(() => {
      res.once("finish", () => settle(res, subject));
      next();
    }, next);
  };
}
