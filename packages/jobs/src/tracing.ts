import { type Attributes, type Span, SpanStatusCode, trace } from "@opentelemetry/api";

/**
 * Spans through `@opentelemetry/api` only: they record nothing (and cost
 * next to nothing) unless the application registers an SDK.
 */
const tracer = trace.getTracer("@svc/jobs");

/**
 * Runs `work` inside a span named `name` (the active span's child, and the
 * parent of spans started inside it); a thrown error marks the span failed
 * with its `code` when it has one, and is rethrown.
 */
export function withSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
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
  });
}
