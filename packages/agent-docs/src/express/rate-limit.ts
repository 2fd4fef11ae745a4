import type { RequestHandler } from "express";
import { rateLimit } from "express-rate-limit";
import { AgentDocsError, toAgentErrorResponse } from "../errors.js";

/** How many requests one client address may make per window. */
export interface AgentRateLimitOptions {
  /** Window length in milliseconds. Default 60000 (one minute). */
  windowMs?: number;
  /** Requests allowed per client address and window. Default 300. */
  limit?: number;
}

/** The default quota: 300 requests per minute per client address. */
export const DEFAULT_AGENT_RATE_LIMIT = { windowMs: 60_000, limit: 300 } as const;

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new AgentDocsError("INVALID_OPTIONS", {
      message: `The rate limit option ${name} must be a positive integer.`,
    });
  }
  return value;
}

/**
 * The agent API limiter (express-rate-limit, in-memory per process): quota
 * per client address (`req.ip`, so set express's `trust proxy` behind a
 * proxy; IPv6 addresses count per /56), announced in the standard
 * `RateLimit` / `RateLimit-Policy` headers (draft 8, policy `svc-agent`, no
 * `X-RateLimit-*`); past it, 429 with `Retry-After` and the `RATE_LIMITED`
 * envelope. Exported so a server can put `/mcp` under the same quota.
 *
 * @example
 * app.post("/mcp", createAgentRateLimiter({ limit: 120 }), mcpHandler);
 */
export function createAgentRateLimiter(options: AgentRateLimitOptions = {}): RequestHandler {
  const windowMs = positiveInteger(
    "windowMs",
    options.windowMs ?? DEFAULT_AGENT_RATE_LIMIT.windowMs,
  );
  const limit = positiveInteger("limit", options.limit ?? DEFAULT_AGENT_RATE_LIMIT.limit);
  return rateLimit({
    windowMs,
    limit,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    identifier: "svc-agent",
    handler: (_req, res) => {
      const { status, body } = toAgentErrorResponse(new AgentDocsError("RATE_LIMITED"));
      res.status(status).setHeader("Cache-Control", "no-store").json(body);
    },
  });
}
