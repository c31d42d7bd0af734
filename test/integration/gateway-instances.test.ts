import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { startTracing, type Tracing } from '../../src/observability/tracing-sdk';
import { eventually, gpsiEndingIn } from '../support/client';
import { testAuth, type TestAuth } from '../support/auth';
import { request, startTestGateway, type TestGateway } from '../support/gateway';
import { startTestService } from '../support/harness';
import { useService } from '../support/service-fixture';

// The gateway scaled out on the real stack: two gateway instances and two workers of one deployment.
// The per-partner limit is counted once in Redis; each instance reads the replies of its own requests in
// reply groups named by its GATEWAY_INSTANCE_ID, which a restart reuses; /readyz says when Kafka or the
// token keys cannot be reached; a request's trace goes on through its command (tracing on, in memory).
const exporter = new InMemorySpanExporter();
let tracing: Tracing;
beforeAll(async () => {
  tracing = startTracing({ exporter: 'none', headers: {}, serviceName: 'gateway-instances-test', samplerRatio: 1 }, { exporter });
});
afterAll(async () => {
  await tracing?.shutdown();
});

describe('two gateways and two workers', () => {
  let auth: TestAuth;
  let alpha: string;
  let beta: string;
  const run = randomUUID().slice(0, 8);
  const instance = (name: string) => `${name}-${run}`;
  const LIMITED = { GATEWAY_RATE_LIMIT_MAX: '6', GATEWAY_RATE_LIMIT_WINDOW_MS: '60000' };
  let gatewayA: TestGateway;
  let gatewayB: TestGateway;

  beforeAll(async () => {
    auth = await testAuth();
  });
  const fx = useService({ env: () => auth.env });
  const start = (name: string, overrides: Record<string, string> = {}) => startTestGateway(fx.config, { ...LIMITED, GATEWAY_INSTANCE_ID: instance(name), ...overrides });
  const eligibility = (gateway: TestGateway, token: string, headers: Record<string, string> = {}) =>
    request(gateway.url, 'POST', '/portins/eligibility', { token, body: { gpsi: gpsiEndingIn('17') }, headers });
  const groupsNaming = async (text: string): Promise<string[]> => {
    const admin = new Kafka({ brokers: fx.config.kafka.brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      return (await admin.listGroups()).groups
        .map((group) => group.groupId)
        .filter((id) => id.includes(text))
        .sort();
    } finally {
      await admin.disconnect();
    }
  };

  beforeAll(async () => {
    fx.track(await startTestService(fx.config)); // the second worker of the group
    gatewayA = await start('gw-a');
    gatewayB = await start('gw-b');
    alpha = await auth.signer.sign('alpha');
    beta = await auth.signer.sign('beta');
  });

  afterAll(async () => {
    await gatewayA?.close();
    await gatewayB?.close();
    auth?.cleanup();
  });

  it("holds a partner's limit across both instances: 6 per window in all, not 6 on each", async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => eligibility(i % 2 === 0 ? gatewayA : gatewayB, alpha)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(6);
    expect(statuses.filter((status) => status === 429)).toHaveLength(6);
  });

  it("answers a retry with the same X-Correlation-Id on the other instance, from that instance's own reply group", async () => {
    const correlationId = randomUUID();
    const first = await eligibility(gatewayA, beta, { 'X-Correlation-Id': correlationId });
    const retry = await eligibility(gatewayB, beta, { 'X-Correlation-Id': correlationId });
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(retry.headers.get('x-correlation-id')).toBe(correlationId);
    expect(retry.body.eligibilityStatus).toBe(first.body.eligibilityStatus);
  });

  it('leaves no consumer group behind when an instance restarts: the restarted one reuses its reply group', async () => {
    expect((await eligibility(gatewayB, beta)).status).toBe(200);
    const betaReplyGroups = () => groupsNaming(`${fx.config.partnerTopicPrefix}beta.wholesale-gateway-replies-`);
    const before = await betaReplyGroups();
    expect(before.filter((group) => group.endsWith(instance('gw-b')))).toHaveLength(1);
    await gatewayB.close();
    gatewayB = await start('gw-b');
    expect((await eligibility(gatewayB, beta)).status).toBe(200);
    expect(await betaReplyGroups()).toEqual(before);
  });

  it('is ready while Kafka and the token keys answer; /readyz fails naming each that does not', async () => {
    const ready = await request(gatewayA.url, 'GET', '/readyz');
    expect([ready.status, ready.body.failed, Object.keys(ready.body.checks).sort()]).toEqual([200, [], ['kafka', 'tokenKeys']]);

    const dir = mkdtempSync(join(tmpdir(), 'gateway-keys-'));
    const jwksFile = join(dir, 'jwks.json');
    copyFileSync(auth.env.AUTH_JWKS_FILE, jwksFile);
    const cut = await start('gw-cut', { KAFKA_BROKERS: '127.0.0.1:1', AUTH_JWKS_FILE: jwksFile, READINESS_CACHE_MS: '0', READINESS_PROBE_TIMEOUT_MS: '1000' });
    try {
      expect((await request(cut.url, 'GET', '/readyz')).body.failed).toEqual(['kafka']);
      rmSync(dir, { recursive: true, force: true });
      const unready = await request(cut.url, 'GET', '/readyz');
      expect([unready.status, unready.body.failed]).toEqual([503, ['kafka', 'tokenKeys']]);
    } finally {
      await cut.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("continues the caller's traceparent: the command's send and its handling by the worker are in the caller's trace", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpanId = '00f067aa0ba902b7';
    const answer = await eligibility(gatewayA, beta, { traceparent: `00-${traceId}-${callerSpanId}-01` });
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
