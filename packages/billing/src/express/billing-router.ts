import { getCaller } from "@svc/schema/http";
import express, { type Request, type Router } from "express";
import { requireBillingCaller } from "../checkout.js";
import type { Billing } from "../create-billing.js";
import { BillingError } from "../errors.js";
import { jsonBody, rawBody } from "./body-parsers.js";

/** The webhook's path: the processor posts here with no cookie and no bearer (see `isBillingWebhook`). */
export const BILLING_WEBHOOK_PATH = "/api/billing/webhook";

/** Largest webhook body accepted by default: 1 MiB. */
export const DEFAULT_WEBHOOK_LIMIT_BYTES = 1024 * 1024;

/** Options of `createBillingRouter`. */
export interface BillingRouterOptions {
  /** Largest webhook body. Default 1 MiB. The checkout body is limited to 64 KiB. */
  readonly bodyLimitBytes?: number;
  /** The server's public address (`SVC_PUBLIC_URL`) for relative redirects; default the request's own. */
  readonly publicURL?: string | undefined;
}

/**
 * True for the webhook route. Let the server skip caller resolution and
 * the CSRF check there: the processor posts without a session, and the
 * request is authenticated by its signature instead.
 */
export function isBillingWebhook(req: Pick<Request, "path">): boolean {
  return req.path === BILLING_WEBHOOK_PATH || req.path === `${BILLING_WEBHOOK_PATH}/`;
}

function baseURLOf(req: Request, publicURL: string | undefined): string {
  return publicURL ?? `${req.protocol}://${req.headers.host ?? "localhost"}`;
}

/**
 * The billing routes as one express router (absolute paths):
 *
 * - `POST /api/billing/checkout` (real session): `{priceIds, mode?,
 *   successUrl?, cancelUrl?}` → `{url, id}`.
 * - `POST /api/billing/webhook` (signature-verified): the raw body and the
 *   `Stripe-Signature` header → `{received: true}`.
 * - `GET /api/billing/entitlements` (real session): the caller's own
 *   `{active, subscriptions}`.
 * - `POST /api/admin/billing/events/<id>/replay` (admin token): runs the
 *   `onEvent` hook again for a recorded event.
 *
 * Mount it before any JSON body parser (the webhook needs the exact bytes)
 * and after auth-core's `authenticate` (the other routes read
 * `getCaller(req)`); errors go to the app's error handler built on
 * `toErrorResponse` (auth-core's `authErrorHandler` is one).
 *
 * @example
 * app.use(authenticate({ resolvers }));
 * app.use(createBillingRouter(billing, { publicURL: process.env.SVC_PUBLIC_URL }));
 * app.use(authErrorHandler());
 */
export function createBillingRouter(billing: Billing, options: BillingRouterOptions = {}): Router {
  const router = express.Router({ caseSensitive: true });
  const json = jsonBody(64 * 1024);
  const raw = rawBody(options.bodyLimitBytes ?? DEFAULT_WEBHOOK_LIMIT_BYTES);

  router.post(BILLING_WEBHOOK_PATH, raw, async (req, res) => {
    const signature = req.headers["stripe-signature"];
    res.json(
      await billing.handleWebhook(
        req.body as Buffer,
        typeof signature === "string" ? signature : undefined,
      ),
    );
  });
  router.post("/api/billing/checkout", json, async (req, res) => {
    res.json(await billing.checkout(getCaller(req), req.body, baseURLOf(req, options.publicURL)));
  });
  router.get("/api/billing/entitlements", async (req, res) => {
    res.json(await billing.entitlementsFor(requireBillingCaller(getCaller(req))));
  });
  router.post("/api/admin/billing/events/:eventId/replay", async (req, res) => {
    const caller = getCaller(req);
    if (!caller.isAdmin) {
      throw new BillingError(caller.via === null ? "AUTH_REQUIRED" : "ADMIN_REQUIRED");
    }
    res.json(await billing.replayEvent(String(req.params.eventId)));
  });
  return router;
}
