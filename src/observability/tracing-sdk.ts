import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, SimpleSpanProcessor, TraceIdRatioBasedSampler, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { TracingSettings } from '../config/tracing-settings';
import { setTracingEnabled } from '../shared/tracing';

export interface Tracing {
  /** Exports what is buffered and unregisters everything (tracing is off again). */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { shutdown: async () => undefined };

/**
 * Wires the OpenTelemetry SDK when the settings ask for it (an OTLP endpoint, src/config/tracing-settings.ts):
 * a tracer provider exporting over OTLP/HTTP in batches, the async-local context manager (spans follow
 * awaits) and the W3C Trace Context propagator (`traceparent` on Kafka headers). Tests pass their own
 * exporter (the SDK's in-memory one), exported span by span.
 */
export function startTracing(settings: TracingSettings, options: { exporter?: SpanExporter } = {}): Tracing {
  if (!options.exporter && settings.exporter === 'none') return OFF;
  const spanProcessor = options.exporter
    ? new SimpleSpanProcessor({ exporter: options.exporter })
    : new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: settings.endpoint, headers: settings.headers }) });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.samplerRatio) }),
    spanProcessors: [spanProcessor],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setTracingEnabled(true);
  return {
    async shutdown() {
      setTracingEnabled(false);
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
