import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { createLogger } from '../../../src/observability/logger';
import { contextFromHeaders, inSpan, traceHeaders } from '../../../src/shared/tracing';
import { startTracing, type Tracing } from '../../../src/observability/tracing-sdk';

const SETTINGS = { exporter: 'none' as const, headers: {}, serviceName: 'unit', samplerRatio: 1 };
const PARTNER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const partnerHeaders = { traceparent: Buffer.from(`00-${PARTNER_TRACE}-b7ad6b7169203331-01`) };

describe('tracing off (no OTEL_* endpoint)', () => {
  it('adds no header, continues nothing and runs the work as it is', async () => {
    expect(startTracing(SETTINGS)).toBeDefined();
    expect(traceHeaders(contextFromHeaders(partnerHeaders))).toEqual({});
    await expect(inSpan('work', {}, async (span) => span)).resolves.toBeUndefined();
  });
});

describe('tracing on', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  beforeAll(() => (tracing = startTracing(SETTINGS, { exporter })));
  afterAll(() => tracing.shutdown());

  it("continues a partner's traceparent (a Kafka header as kafkajs gives it) and hands on its own span", async () => {
    const headers = await inSpan('process', { parent: contextFromHeaders(partnerHeaders) }, async () => traceHeaders());
    const [span] = exporter.getFinishedSpans().filter((s) => s.name === 'process');
    expect(span.spanContext().traceId).toBe(PARTNER_TRACE);
    expect(span.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(headers.traceparent).toBe(`00-${PARTNER_TRACE}-${span.spanContext().spanId}-01`);
  });

  it('puts trace_id and span_id on the log lines written inside a span, and none outside', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger({ level: 'info', name: 'unit', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    await inSpan('logged', {}, async () => log.info('inside'));
    log.info('outside');
    const [span] = exporter.getFinishedSpans().filter((s) => s.name === 'logged');
    expect(lines[0]).toMatchObject({ msg: 'inside', trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
    expect(lines[1]).toMatchObject({ msg: 'outside' });
    expect(lines[1]).not.toHaveProperty('trace_id');
  });

  it('marks a span whose work failed as an error and rethrows', async () => {
    await expect(inSpan('failing', {}, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const [span] = exporter.getFinishedSpans().filter((s) => s.name === 'failing');
    expect(span.status).toMatchObject({ code: 2, message: 'boom' });
  });
});
