import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { startTracing, type Tracing } from '../../src/observability/tracing-sdk';
import { eventually, gpsiEndingIn } from '../support/client';
import { request, startTestGateway, type TestGateway } from '../support/gateway';
import { useService } from '../support/service-fixture';

// An HTTP request's trace continued through the gateway: the command it sends and the worker's handling of
// it are spans of the caller's trace (its traceparent header), under the caller's span.
const exporter = new InMemorySpanExporter();
let tracing: Tracing;
beforeAll(async () => {
  tracing = startTracing({ exporter: 'none', headers: {}, serviceName: 'gateway-tracing-test', samplerRatio: 1 }, { exporter });
});
afterAll(async () => {
  await tracing?.shutdown();
});

describe('the gateway with tracing on', () => {
  const fx = useService();
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = fx.track(await startTestGateway(fx.config));
  });

  it("continues the caller's traceparent: the command's send and its handling by the worker are in the caller's trace", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpanId = '00f067aa0ba902b7';
    const answer = await request(gateway.url, 'POST', '/portins/eligibility', { body: { gpsi: gpsiEndingIn('31') }, headers: { traceparent: `00-${traceId}-${callerSpanId}-01` } });
    expect(answer.status).toBe(200);
    const spans = await eventually('the worker span of the command', () => {
      const inTrace = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
      return inTrace.some((span) => span.name.endsWith(' process')) ? inTrace : undefined;
    });
    const send = spans.find((span) => span.name === 'send checkPortInEligibility');
    expect(send?.parentSpanContext?.spanId).toBe(callerSpanId);
    const processed = spans.find((span) => span.name.endsWith(' process'))!;
    expect(processed.parentSpanContext?.spanId).toBe(send!.spanContext().spanId);
  });
});
