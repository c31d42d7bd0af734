import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type TextMapGetter } from '@opentelemetry/api';

/**
 * Tracing through the OpenTelemetry API only: without an SDK registered (tracing off, the default) every
 * call here is a no-op that costs a branch. The SDK, exporter, context manager and W3C propagator are wired
 * by the entry points (observability/tracing-sdk.ts) when OTEL_* settings ask for them.
 */
const TRACER_NAME = 'wholesale-portin-balance';

let enabled = false;

/** Set by the SDK wiring: spans are recorded and `traceparent` travels on every output. */
export function setTracingEnabled(on: boolean): void {
  enabled = on;
}

export const isTracing = (): boolean => enabled;

export const tracer = () => trace.getTracer(TRACER_NAME);

export { SpanKind };

type HeaderValue = string | Buffer | (string | Buffer)[] | undefined;

/** Kafka headers as the W3C propagator reads them (consumed values are Buffers). */
const kafkaHeaderGetter: TextMapGetter<Record<string, HeaderValue>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    if (value === undefined) return undefined;
    const first = Array.isArray(value) ? value[0] : value;
    return first === undefined ? undefined : first.toString();
  },
};

/** The trace a record continues: its `traceparent` (and `tracestate`) header, or a new root. */
export function contextFromHeaders(headers: Record<string, HeaderValue> | undefined): Context {
  return enabled && headers ? propagation.extract(ROOT_CONTEXT, headers, kafkaHeaderGetter) : ROOT_CONTEXT;
}

/** The trace an HTTP request continues: its `traceparent` header (Node lower-cases header names), or a new root. */
export const contextOfHttpHeaders = (headers: Record<string, string | string[] | undefined>): Context => (enabled ? propagation.extract(ROOT_CONTEXT, headers, kafkaHeaderGetter) : ROOT_CONTEXT);

/** Runs `work` with `parent` as the active context (the parent of the spans it starts); as it is when tracing is off. */
export const runInContext = <T>(parent: Context, work: () => T): T => (enabled ? context.with(parent, work) : work());

/** `traceparent` (and `tracestate`) of the active span, for a message this span causes; {} when tracing is off. */
export function traceHeaders(from: Context = context.active()): Record<string, string> {
  if (!enabled) return {};
  const headers: Record<string, string> = {};
  propagation.inject(from, headers);
  return headers;
}

/** `headers` with the active span's `traceparent` added; the same object, not a copy, when tracing is off (the hot path). */
export function withTraceHeaders<H extends Record<string, unknown>>(headers: H): H {
  return enabled ? { ...headers, ...traceHeaders() } : headers;
}

/** The ids a log line carries, so logs and traces join: {} outside a recorded span. */
export function logTraceFields(): { trace_id?: string; span_id?: string } {
  if (!enabled) return {};
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The context to start from; default the active one. */
  parent?: Context;
}

/**
 * Runs `work` in a new active span, ended when the work settles (an exception marks it as an error).
 * Without tracing the work runs as it is.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span?: Span) => Promise<T>): Promise<T> {
  if (!enabled) return work();
  const parent = options.parent ?? context.active();
  return tracer().startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Starts a span without making it active (a send whose end comes later, from another call). */
export function startSpan(name: string, options: SpanOptions): Span | undefined {
  if (!enabled) return undefined;
  return tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, options.parent ?? context.active());
}

/** Ends a span started with startSpan, as an error when `failure` is given. */
export function endSpan(span: Span | undefined, failure?: string): void {
  if (!span) return;
  if (failure !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
  span.end();
}

/** `traceparent` (and `tracestate`) naming `span` itself, for the message it sends. */
export function headersOfSpan(span: Span): Record<string, string> {
  return traceHeaders(trace.setSpan(context.active(), span));
}
