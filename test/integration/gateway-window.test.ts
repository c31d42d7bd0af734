import { randomUUID } from 'node:crypto';
import type { ServiceConfig } from '../../src/app/config';
import type { RunningService } from '../../src/app/service';
import { startTestService, testConfig } from '../support/harness';
import { gpsiEndingIn } from '../support/client';
import { testAuth, type TestAuth } from '../support/auth';
import { request, startTestGateway, type TestGateway } from '../support/gateway';

/**
 * The two statuses only a tighter service shows over HTTP: 410 for a command older than the idempotency
 * window (TTL 6 s, margin 2 s: older than 4 s), 429 for the service's own per-partner rate (1/s, burst 2).
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the HTTP gateway over a service with a short idempotency window and a low rate', () => {
  let auth: TestAuth;
  let config: ServiceConfig;
  let service: RunningService | undefined;
  let gateway: TestGateway;
  let alpha: string;

  beforeAll(async () => {
    auth = await testAuth();
    config = testConfig({ ...auth.env, IDEMPOTENCY_TTL_SECONDS: '6', STALE_COMMAND_MARGIN_SECONDS: '2', RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' });
    service = await startTestService(config);
    gateway = await startTestGateway(config, { GATEWAY_REPLY_TIMEOUT_MS: '30000' });
    alpha = await auth.signer.sign('alpha');
  });

  afterAll(async () => {
    await gateway?.close();
    await service?.stop();
    auth?.cleanup();
  });

  it("answers 429 with the service's RATE_LIMITED reply when the partner's rate at the service is spent", async () => {
    const replies = await Promise.all(Array.from({ length: 6 }, () => request(gateway.url, 'POST', '/portins/eligibility', { token: alpha, body: { gpsi: gpsiEndingIn('42') } })));
    const limited = replies.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]!.body).toMatchObject({ status: 'RATE_LIMITED', operation: 'CheckPortInEligibility', error: { code: 'RATE_LIMITED' } });
    expect(limited[0]!.body.error.message).not.toContain('gateway');
  });

  it('answers 410 when the command waited on Kafka longer than the idempotency window before the service read it', async () => {
    await sleep(3000); // the rate bucket refills
    await service!.stop();
    service = undefined;
    const id = `stale-${randomUUID()}`;
    const waiting = request(gateway.url, 'POST', '/portins/eligibility', { token: alpha, body: { gpsi: gpsiEndingIn('42') }, headers: { 'X-Correlation-Id': id } });
    await sleep(5000);
    service = await startTestService(config);
    const stale = await waiting;
    expect(stale).toMatchObject({ status: 410, body: { status: 'STALE_COMMAND', error: { code: 'STALE_COMMAND' } } });
    expect(stale.headers.get('x-correlation-id')).toBe(id);
  });
});
