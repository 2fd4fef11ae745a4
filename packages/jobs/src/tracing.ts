import { createTracing } from "@svc/store/tracing";

/** This package's spans, under the `@svc/jobs` tracer (see `@svc/store/tracing`). */
export const { withSpan } = createTracing("@svc/jobs");
