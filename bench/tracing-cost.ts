import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runScenario, type BenchContext, type ScenarioOptions, type ScenarioResult } from './scenario';

/**
 * What tracing costs (issue 18): the same service scenario with tracing off, then on, every command
 * traced (sampler ratio 1) and exported over OTLP/HTTP to a sink in this process that counts what it
 * receives and answers 200, as a collector would. The worker pays for the spans, the context propagation
 * and the export; the sink's own work is the bench process's.
 */
export interface TracingCostResult {
  off: ScenarioResult;
  on: ScenarioResult;
  /** OTLP export requests and bytes the sink received while tracing was on. */
  exports: { requests: number; bytes: number };
}

interface OtlpSink {
  endpoint: string;
  received: { requests: number; bytes: number };
  close(): Promise<void>;
}

async function startOtlpSink(): Promise<OtlpSink> {
  const received = { requests: 0, bytes: 0 };
  const server: Server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (received.bytes += chunk.length));
    request.on('end', () => {
      received.requests++;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function measureTracingCost(context: BenchContext, options: Omit<ScenarioOptions, 'name' | 'kind' | 'workerEnv'>): Promise<TracingCostResult> {
  const off = await runScenario(context, { ...options, name: 'trace-off', kind: 'service' });
  const sink = await startOtlpSink();
  try {
    const on = await runScenario(context, { ...options, name: 'trace-on', kind: 'service', workerEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, OTEL_TRACES_SAMPLER_ARG: '1' } });
    context.progress(`tracing: ${sink.received.requests} OTLP exports, ${Math.round(sink.received.bytes / 1024)} KiB`);
    return { off, on, exports: { ...sink.received } };
  } finally {
    await sink.close();
  }
}
