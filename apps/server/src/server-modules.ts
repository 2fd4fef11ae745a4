import { resolve } from "node:path";
import type { Auth } from "@svc/auth-core";
import { authModule } from "@svc/auth-core/express";
import { type Billing, type BillingEvent, checkBillingUser } from "@svc/billing";
import { billingModule } from "@svc/billing/express";
import { createBlobStoreFromConfig, type Files } from "@svc/files";
import { filesModule } from "@svc/files/express";
import { type FunctionRunner, loadFunctions } from "@svc/functions";
import { functionsModule } from "@svc/functions/express";
import type { JobQueue } from "@svc/jobs";
import { jobsModule } from "@svc/jobs/express";
import { oauthModule } from "@svc/oauth-providers/express";
import type { Manifest } from "@svc/schema";
import { type ComposedModules, composeModules } from "@svc/store";
import { storeModule } from "@svc/store/express";
import { createReadTracker, type Sync } from "@svc/sync";
import { syncModule } from "@svc/sync/express";
import type { IRouter, Request } from "express";
import { createAppEmailSender } from "./app-email.js";
import type { ServerConfig } from "./config.js";
import type { ServerMetrics } from "./http/metrics.js";
import { liveQueryRunner } from "./live-queries.js";
import { runWithLogContext } from "./logging/request-context.js";
import type { ServerRuntime } from "./open-runtime.js";
import { defaultFilesDir } from "./storage-paths.js";

/** What the server's modules are built from beside the configuration. */
export interface ServerModulesContext {
  readonly manifest: Manifest;
  readonly manifestDir: string;
  readonly adminToken: string;
  /** Origins allowed by CORS (the manifest's trusted origins unless `SVC_CORS_ORIGINS`). */
  readonly corsOrigins: readonly string[];
  /** Who may sign in and change things with the session cookie (`true`: any origin, dev mode). */
  readonly csrfOrigins: true | readonly string[];
  readonly metrics: ServerMetrics;
  /** Unexpected errors of a request (logged with its route template). */
  readonly onInternalError: (error: unknown, req: Request) => void;
  /** Background writes that failed (jobs, pruning): a full disk takes the server out of readiness. */
  readonly observeStorage: (error: unknown) => void;
}

/** The server's modules, composed, and the cores that the server wires beyond them. */
export interface ServerModules {
  readonly composed: ComposedModules<IRouter>;
  readonly auth: Auth;
  readonly billing: Billing;
  readonly files: Files;
  readonly jobs: JobQueue;
  readonly sync: Sync;
  readonly runner: FunctionRunner;
  /** The sign-in endpoints' per-address limiter, shared by the studio's sign-in; undefined when limits are off. */
  readonly signInLimiter: ReturnType<typeof authModule>["signInLimiter"];
}

/**
 * Whether a failed job may succeed on a later attempt: not after a client
 * error (4xx other than 408, 409 and 429), which would fail the same way.
 */
function isRetryableJobError(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status !== "number" || status < 400 || status >= 500) return true;
  return status === 408 || status === 409 || status === 429;
}

/**
 * Every package of svc as a module, configured from the environment. The
 * list's order is the order routes are tried (the hottest first) and the
 * reverse of the order they close: the job worker drains first, the store
 * is the runtime's and closes after all of them.
 */
export async function serverModules(
  base: ServerRuntime,
  config: ServerConfig,
  context: ServerModulesContext,
): Promise<ServerModules> {
  const { runtime } = base;
  const { manifest, corsOrigins, metrics } = context;
  const functions = await loadFunctions(resolve(context.manifestDir, manifest.functions));
  const store = storeModule(runtime, { bodyLimitBytes: config.bodyLimitBytes });
  const { sessionLifetimeSecs, email, sms, captcha, jwt, upstreamJWT } = config.auth;
  const auth = authModule(runtime, {
    ...{ sessionLifetimeSecs, email, sms, captcha, jwt, upstreamJWT },
    schema: base.schemas.auth,
    ...(base.revocationSignal !== undefined && { revocationSignal: base.revocationSignal }),
    adminToken: context.adminToken,
    router: {
      cookie: config.auth.cookie,
      trustedOrigins: corsOrigins,
      csrfOrigins: context.csrfOrigins,
      publicURL: config.publicURL,
      rateLimit: config.auth.rateLimit ? {} : false,
      magicCodeSubject: config.auth.email.magicCodeSubject,
    },
  });
  const oauth = oauthModule(runtime, {
    auth: auth.auth,
    providers: config.oauth,
    cookie: config.auth.cookie,
    trustedOrigins: corsOrigins,
    publicURL: config.publicURL,
    onError: context.onInternalError,
    // The sign-in endpoints' per-address limit, sharing their counters.
    rateLimit: auth.signInLimiter?.(),
  });
  // A configured processor needs somewhere to keep the customer id.
  if (config.billing.apiKey !== undefined) checkBillingUser(manifest);
  let dispatchBillingEvent: ((event: BillingEvent, replay: boolean) => Promise<void>) | undefined;
  const billing = billingModule(runtime, {
    ...config.billing,
    trustedOrigins: corsOrigins,
    publicURL: config.publicURL,
    router: { publicURL: config.publicURL },
    // Other servers drop their cached entitlements of the user.
    changes: auth.auth,
    // The application's billing hooks (function files), bound below.
    onEvent: (event, { replay }) => dispatchBillingEvent?.(event, replay) ?? Promise.resolve(),
  });
  const files = filesModule(runtime, {
    blobs: createBlobStoreFromConfig(config.files, {
      defaultDir: defaultFilesDir(context.manifestDir),
      secret: runtime.secret,
      now: runtime.now,
    }),
    urlPrefix: config.files.urlPrefix,
    maxBytes: config.files.maxBytes,
    allowedContentTypes: config.files.allowedContentTypes,
  });
  // Scheduled calls run through the runner as their scheduling caller;
  // every line logged while a job runs carries its id and name.
  let runner: FunctionRunner | undefined;
  const jobs = jobsModule(runtime, {
    schema: base.schemas.jobs,
    worker: () => ({
      cron: (runner?.schedules() ?? []).map((schedule) => ({
        name: `fn.${schedule.name}`,
        schedule: schedule.cron,
        fn: schedule.name,
      })),
      run: metrics.instrumentJobRun(async (job) => {
        await runWithLogContext({ jobId: job.id, job: job.name }, () =>
          (runner as FunctionRunner).run(job.name, job.args, job.auth),
        );
      }),
      isRetryable: isRetryableJobError,
      onError: (error) => {
        context.observeStorage(error);
        runtime.log.error({ err: error }, "jobs: worker failed");
      },
    }),
  });
  // One runner (a second would register every hook twice). Its store
  // records reads only inside a live query's run, for sync below.
  const tracker = createReadTracker(runtime.store);
  const fns = functionsModule(runtime, {
    store: tracker.store,
    functions,
    scheduler: jobs.scheduler,
    idempotency: store.idempotency,
    // ctx.email: the SVC_EMAIL_* provider, or in dev mode the auth dev inbox.
    email: createAppEmailSender(config.email, config.auth.email.devInbox),
    bodyLimitBytes: config.bodyLimitBytes,
  });
  runner = fns.runner;
  const boundRunner = fns.runner;
  dispatchBillingEvent = (event, replay) => boundRunner.dispatchBillingEvent({ event, replay });
  const sync = syncModule(runtime, {
    changeLog: base.changeLog,
    queries: liveQueryRunner(functions, fns.runner, tracker),
    onBackgroundError: context.observeStorage,
  });
  return {
    composed: composeModules([fns, store, auth, oauth, billing, files, sync, jobs]),
    auth: auth.auth,
    billing: billing.billing,
    files: files.files,
    jobs: jobs.queue,
    // Made when the module starts (it follows the change log from then on).
    get sync() {
      return sync.sync;
    },
    runner: fns.runner,
    signInLimiter: auth.signInLimiter,
  };
}
