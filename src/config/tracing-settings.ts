import { ConfigError, EnvReader, type Env } from './env';

/**
 * OpenTelemetry tracing, read from the standard OTEL_* variables (the subset this service honours). Off
 * unless an OTLP endpoint is given; OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none turn it off whatever
 * else is set.
 */
export interface TracingSettings {
  exporter: 'otlp' | 'none';
  /** The OTLP/HTTP traces URL (…/v1/traces). */
  endpoint?: string;
  /** Sent with every export (OTEL_EXPORTER_OTLP_HEADERS: key=value,…): often a credential. */
  headers: Record<string, string>;
  serviceName: string;
  /** Share of new traces recorded (a command that continues a partner's trace follows the partner's choice). */
  samplerRatio: number;
}

export function loadTracingSettings(env: Env = process.env, defaultServiceName = 'wholesale-portin-balance'): TracingSettings {
  const reader = new EnvReader(env);
  const serviceName = reader.string('OTEL_SERVICE_NAME', defaultServiceName);
  const headers = parseHeaders(reader.optionalString('OTEL_EXPORTER_OTLP_HEADERS'));
  const samplerRatio = parseRatio(reader.optionalString('OTEL_TRACES_SAMPLER_ARG'));
  const tracesEndpoint = reader.optionalString('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseEndpoint = reader.optionalString('OTEL_EXPORTER_OTLP_ENDPOINT');
  const endpoint = tracesEndpoint !== undefined
    ? reader.url('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:'])
    : baseEndpoint !== undefined
      ? `${reader.url('OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']).replace(/\/+$/, '')}/v1/traces`
      : undefined;
  const disabled = reader.boolean('OTEL_SDK_DISABLED', false);
  const exporter = reader.oneOf('OTEL_TRACES_EXPORTER', ['otlp', 'none'] as const, 'otlp');
  const on = !disabled && exporter === 'otlp' && endpoint !== undefined;
  return { exporter: on ? 'otlp' : 'none', endpoint, headers, serviceName, samplerRatio };
}

function parseHeaders(raw: string | undefined): Record<string, string> {
  if (raw === undefined) return {};
  const headers: Record<string, string> = {};
  for (const pair of raw.split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new ConfigError('OTEL_EXPORTER_OTLP_HEADERS', 'key=value pairs separated by commas', '[redacted]');
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

function parseRatio(raw: string | undefined): number {
  if (raw === undefined) return 1;
  const ratio = Number(raw);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', 'a number from 0 to 1', raw);
  return ratio;
}
