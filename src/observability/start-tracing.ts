import type { TracingSettings } from '../config/tracing-settings';
import type { Tracing } from './tracing-sdk';

/**
 * What the entry points call: the OpenTelemetry SDK and its OTLP exporter (tracing-sdk.ts) are loaded only
 * when traces are exported. Off, as by default, a worker does not carry them (≈ 17 MB of resident memory).
 */
export async function startTracingIfExported(settings: TracingSettings): Promise<Tracing> {
  if (settings.exporter === 'none') return { shutdown: async () => undefined };
  const { startTracing } = await import('./tracing-sdk');
  return startTracing(settings);
}
