import type { AuthContext } from "@svc/schema";
import type { SvcModule, SvcRuntime } from "@svc/store";
import type { IRouter } from "express";
import { type Billing, type BillingOptions, createBilling } from "../create-billing.js";
import { type BillingRouterOptions, createBillingRouter } from "./billing-router.js";

/**
 * How servers tell each other that a user's entitlements changed: auth-core's
 * revocation journal (an `Auth` is one). Other servers drop their cached
 * entitlements of that user.
 */
export interface CallerChangeChannel {
  announceCallerChange(userId: string, reason: "entitlements-changed"): Promise<void>;
  onRevoked(
    listener: (change: { userId: string; reason: string; local: boolean }) => void,
  ): () => void;
}

/** What `billingModule` needs beside the runtime. */
export interface BillingModuleOptions
  extends Omit<
    BillingOptions,
    "store" | "db" | "dialect" | "now" | "logError" | "onEntitlementsChanged"
  > {
  readonly router?: BillingRouterOptions;
  /** Tells the other servers of one database when entitlements change; none on a lone server. */
  readonly changes?: CallerChangeChannel;
}

/** Billing as a module, plus the core (webhook replay, hooks, the studio). */
export interface BillingModule extends SvcModule<IRouter> {
  readonly billing: Billing;
}

/**
 * Billing built from the shared runtime: its tables, the checkout and
 * webhook routes, and, when payments are configured, every signed-in
 * caller's entitlements (cached per user) for `auth.hasEntitlement(...)`.
 */
export function billingModule(runtime: SvcRuntime, options: BillingModuleOptions): BillingModule {
  const { router, changes, ...settings } = options;
  const billing = createBilling({
    ...settings,
    store: runtime.store,
    db: runtime.db,
    dialect: runtime.dialect,
    now: runtime.now,
    logError: (message, error) => runtime.log.error({ err: error }, `billing: ${message}`),
    ...(changes !== undefined && {
      onEntitlementsChanged: (userId: string) =>
        changes.announceCallerChange(userId, "entitlements-changed"),
    }),
  });
  let stopWatch = (): void => undefined;
  return {
    name: "@svc/billing",
    billing,
    migrations: billing.migrations,
    routes: (app) => app.use(createBillingRouter(billing, router ?? {})),
    // Without payments nobody has entitlements: nothing to look up.
    ...(billing.paymentsEnabled && {
      decorateCaller: async (caller: AuthContext) => {
        if (caller.userId === null || caller.isAdmin || caller.isGuest) return caller;
        const entitlements = await billing.entitlementIds(caller.userId);
        return entitlements.length === 0 ? caller : { ...caller, entitlements };
      },
    }),
    start() {
      if (changes === undefined || !billing.paymentsEnabled) return;
      stopWatch = changes.onRevoked(({ userId, reason, local }) => {
        if (reason === "entitlements-changed" && !local) billing.forgetEntitlements(userId);
      });
    },
    reset: () => billing.reset(),
    async close() {
      stopWatch();
    },
  };
}
