import type { Auth } from "@svc/auth-core";
import type { FunctionRunner } from "@svc/functions";
import type { JobQueue } from "@svc/jobs";
import type { Store } from "@svc/store";
import type { LiveCallers } from "@svc/sync";
import type { Request, RequestHandler } from "express";
import { toErrorResponse } from "../errors.js";
import type { ShownError } from "./entity-views.js";
import type { MetricsHistory } from "./metrics-history.js";
import type { RequestLog } from "./request-log.js";

/** What the studio is built from; `startServer` passes the server's own instances. */
export interface StudioOptions {
  /** Rows are read and written through it with the admin token's rights (policies bypassed, validation kept). */
  readonly store: Store;
  /** The function runner: its names for the picker, `run` as the admin. */
  readonly functions: Pick<FunctionRunner, "run" | "names">;
  /** auth-core: the audit log (read, and written for every studio action) and where its session and API key tables live. */
  readonly auth: Pick<Auth, "listAudit" | "recordOperatorAudit" | "database">;
  readonly jobs: Pick<JobQueue, "list" | "counts" | "get" | "retry" | "cancel">;
  /** The token that signs in (`SVC_ADMIN_TOKEN`, or the dev-mode one). */
  readonly adminToken: string;
  /**
   * The Logs page's requests: the in-memory ring the access log feeds
   * (`createRequestLog`, wired to `requestLogging`'s `onEntry`). Without
   * it the page says the request log is off.
   */
  readonly requestLog?: RequestLog | undefined;
  /** The Live page: the server's registry of open live connections (listed, and closed on request). */
  readonly live?: Pick<LiveCallers, "list" | "disconnect"> | undefined;
  /** The Metrics page's samples of the server's registry (`createMetricsHistory`). */
  readonly metricsHistory?: MetricsHistory | undefined;
  /** Dev mode: the sign-in page says where the generated admin token is kept. */
  readonly devMode: boolean;
  /** Rate limit of the sign-in POST (the sign-in endpoints' per-address limiter); none when undefined. */
  readonly signInLimiter?: RequestHandler | undefined;
  /** Largest form body in bytes. Default 1 MiB. */
  readonly bodyLimitBytes?: number;
  /** Unix ms, for studio session expiry. Default `Date.now`. */
  readonly now?: () => number;
  /** Receives unexpected errors (the page shows only a generic one). */
  readonly onInternalError?: (error: unknown, req: Request) => void;
}

/**
 * A client-safe error as the page shows it with its status, or null for an
 * unexpected error (rethrow it: the router logs it and shows a generic page).
 */
export function shownErrorOf(error: unknown): { status: number; error: ShownError } | null {
  const response = toErrorResponse(error);
  if (response.internal || response.status >= 500) return null;
  return { status: response.status, error: response.body.error };
}
