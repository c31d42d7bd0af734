import { randomUUID } from 'node:crypto';
import { gpsiEndingIn } from '../support/client';
import { testAuth, type TestAuth } from '../support/auth';
import { request, startTestGateway, type TestGateway } from '../support/gateway';
import { useService } from '../support/service-fixture';

/**
 * The two statuses only a tighter service shows over HTTP: 410 for a command older than the idempotency
 * window (TTL 6 s, margin 2 s: older than 4 s), 429 for the service's own per-partner rate (1/s, burst 2).
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the HTTP gateway over a service with a short idempotency window and a low rate', () => {
  let auth: TestAuth;
  let gateway: TestGateway;
  let alpha: string;

  beforeAll(async () => {
    auth = await testAuth();
  });

  const fx = useService({ env: () => ({ ...auth.env, IDEMPOTENCY_TTL_SECONDS: '6', STALE_COMMAND_MARGIN_SECONDS: '2', RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' }) });

  beforeAll(async () => {
    gateway = fx.track(await startTestGateway(fx.config, { GATEWAY_REPLY_TIMEOUT_MS: '30000' }));
    alpha = await auth.signer.sign('alpha');
  });

  afterAll(async () => {
    auth?.cleanup();
  });

  it("answers 429 with the service's RATE_LIMITED reply when the partner's rate at the service is spent", async () => {
    const replies = await Promise.all(Array.from({ length: 6 }, () => request(gateway.url, 'POST', '/portins/eligibility', { token: alpha, body: { gpsi: gpsiEndingIn('42') } })));
    const limited = replies.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0].body).toMatchObject({ status: 'RATE_LIMITED', operation: 'CheckPortInEligibility', error: { code: 'RATE_LIMITED' } });
    expect(limited[0].body.error.message).not.toContain('gateway');
  });

  it('answers 410 when the command waited on Kafka longer than the idempotency window before the service read it', async () => {
    await sleep(3000); // the rate bucket refills
    await fx.stopService();
    const id = `stale-${randomUUID()}`;
    const waiting = request(gateway.url, 'POST', '/portins/eligibility', { token: alpha, body: { gpsi: gpsiEndingIn('42') }, headers: { 'X-Correlation-Id': id } });
    await sleep(5000);
    await fx.restart();
    const stale = await waiting;
    expect(stale).toMatchObject({ status: 410, body: { status: 'STALE_COMMAND', error: { code: 'STALE_COMMAND' } } });
    expect(stale.headers.get('x-correlation-id')).toBe(id);
  });
});
