import {
  type Context,
  context,
  INVALID_SPAN_CONTEXT,
  ProxyTracerProvider,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { Request } from "express";

/** Through `@opentelemetry/api` only: spans record nothing unless the app registers an SDK. */
const tracer = trace.getTracer("@svc/server");

/** What the API answers until an SDK is registered. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();
/** The span of a request when nothing records: no header is read, nothing is made. */
const NO_SPAN: RequestSpan = {
  span: trace.wrapSpanContext(INVALID_SPAN_CONTEXT),
  context: undefined,
};

/** Whether an SDK is registered (checked per request: it may be registered after boot). */
function isTracing(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
}

/** A request's server span and the context its handlers run in (undefined: nothing records). */
export interface RequestSpan {
  readonly span: Span;
  readonly context: Context | undefined;
}

/**
 * Starts the server span of a request (`POST`, renamed `POST /api/fn/:name`
 * once the route is known), the child of a `traceparent` the registered
 * propagator reads from the headers. Without an SDK this is a no-op span
 * and no context is entered.
 */
export function startRequestSpan(req: Request, requestId: string): RequestSpan {
  if (!isTracing()) return NO_SPAN;
  const parent = propagation.extract(context.active(), req.headers);
  const span = tracer.startSpan(
    req.method,
    {
      kind: SpanKind.SERVER,
      attributes: { "http.request.method": req.method, "svc.request_id": requestId },
    },
    parent,
  );
  return {
    span,
    context: trace.isSpanContextValid(span.spanContext()) ? trace.setSpan(parent, span) : undefined,
  };
}

/** Ends a request's span with its route template, status and caller kind. */
export function endRequestSpan(
  span: Span,
  fields: { method: string; route: string; status: number; caller: string; aborted: boolean },
): void {
  if (!span.isRecording()) return;
  span.updateName(`${fields.method} ${fields.route}`);
  span.setAttributes({
    "http.route": fields.route,
    "http.response.status_code": fields.status,
    "svc.caller": fields.caller,
  });
  if (fields.status >= 500 || fields.aborted) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
