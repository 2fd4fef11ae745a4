import { createTracing } from "@svc/store/tracing";

/** This package's spans, under the `@svc/billing` tracer (see `@svc/store/tracing`). */
export const { withSpan } = createTracing("@svc/billing");
