/**
 * OpenTelemetry traces through the runtime's own implementation: with `OTEL_DENO=true` Deno
 * registers its tracer provider and context manager with `@opentelemetry/api`, traces every
 * `Deno.serve` request and `fetch` call (injecting and extracting `traceparent`), and exports
 * over OTLP to the `OTEL_EXPORTER_OTLP_*` endpoint. Without it the API is a no-op; the helpers
 * here then return at once without allocating a span (docs/observability.md). The same holds in a
 * trace the sampler (`OTEL_TRACES_SAMPLER`) dropped: the runtime still hands out a span that says
 * it records, but only the sampled flag tells whether anything of it will be exported.
 */
import {
  type Attributes,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
} from "@opentelemetry/api";

export { SpanKind };

const TRACER = "goals-service";

/** True when `span` will be exported: tracing is on and its trace was sampled. */
function sampled(span: Span): boolean {
  return span.isRecording() && (span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0;
}

/** The span of the current async context when one is being recorded (tracing is on, sampled). */
export function recordingSpan(): Span | undefined {
  const span = trace.getActiveSpan();
  return span && sampled(span) ? span : undefined;
}

/** The trace id of the current request or job, for log lines; undefined when not tracing. */
export function activeTraceId(): string | undefined {
  return recordingSpan()?.spanContext().traceId;
}

/** The W3C `traceparent` of the current span, to store with work that continues later. */
export function currentTraceparent(): string | null {
  if (!recordingSpan()) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** Names the runtime's server span after the route template (`GET /runs/:id`). */
export function nameServerSpan(method: string, route: string): void {
  const span = recordingSpan();
  if (!span) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute("http.route", route);
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** Continue this stored trace (`traceparent`) instead of the current context. */
  parent?: string | null;
}

function parentContext(parent: string | null | undefined) {
  if (parent === undefined) return context.active();
  return parent ? propagation.extract(ROOT_CONTEXT, { traceparent: parent }) : ROOT_CONTEXT;
}

/**
 * Runs `work` in a new active span (child of the current one, or of `options.parent`); an
 * exception marks the span as failed. Without tracing, `work` runs as it is.
 */
export function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  const parent = parentContext(options.parent);
  const tracer = trace.getTracer(TRACER);
  const span = tracer.startSpan(
    name,
    { kind: options.kind, attributes: options.attributes },
    parent,
  );
  if (!sampled(span)) {
    span.end();
    return work(undefined);
  }
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await work(span);
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Starts a span under the current one, or returns undefined when nothing is being traced. */
export function childSpan(name: string, attributes: Attributes, kind = SpanKind.INTERNAL) {
  if (!recordingSpan()) return undefined;
  return trace.getTracer(TRACER).startSpan(name, { kind, attributes });
}

export function failSpan(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: err instanceof Error ? err.message : String(err),
  });
}
