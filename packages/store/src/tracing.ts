import { type Attributes, type Span, SpanStatusCode, trace } from "@opentelemetry/api";

/** A package's spans, all under one tracer named after the package. */
export interface Tracing {
  /**
   * Runs `work` inside a span named `name` (the active span's child, and the
   * parent of spans started inside it); a thrown error marks the span failed
   * with its `code` when it has one, and is rethrown.
   */
  withSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T>;
  /** Starts a span that is not made active: for a synchronous step, ended by the caller. */
  startSpan(name: string, attributes: Attributes): Span;
}

/**
 * Spans through `@opentelemetry/api` only: they record nothing (and cost
 * next to nothing) unless the application registers an SDK. Exported on
 * `@svc/store/tracing` so every package that builds on the store names its
 * spans the same way, under its own tracer (`@svc/jobs`, `@svc/billing`, ...).
 */
export function createTracing(tracerName: string): Tracing {
  const tracer = trace.getTracer(tracerName);
  return {
    withSpan: (name, attributes, work) =>
      tracer.startActiveSpan(name, { attributes }, async (span) => {
        try {
          return await work(span);
        } catch (error) {
          const code = (error as { code?: unknown } | null)?.code;
          span.setStatus({
            code: SpanStatusCode.ERROR,
            ...(typeof code === "string" && { message: code }),
          });
          throw error;
        } finally {
          span.end();
        }
      }),
    startSpan: (name, attributes) => tracer.startSpan(name, { attributes }),
  };
}

export const { withSpan, startSpan } = createTracing("@svc/store");
