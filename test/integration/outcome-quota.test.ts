import { HEADER } from '../../src/contract/headers';
import { testAuth, type TestAuth } from '../support/auth';
import { startTestService, testConfig, TestRequester, type Reply } from '../support/harness';
import { createCommand, gpsiEndingIn, PORTIN } from '../support/portin/journey';
import { redisSnapshot } from '../support/redis-snapshot';
import { balanceRecord } from '../support/balance-client';
import { useService } from '../support/service-fixture';

/**
 * Issue 13, item 5a: the changes a partner has recorded (outcome records kept IDEMPOTENCY_TTL_SECONDS)
 * count against PARTNER_OUTCOME_QUOTA. Partner alpha over a quota of 3 gets RATE_LIMITED naming the
 * idempotency quota, nothing applied, while partner beta keeps getting Success; alpha's count falls back
 * as its time buckets leave the window (a 6 s window here: buckets of one second). Queries are not
 * counted. Also prints the Redis bytes one recorded change holds (MEMORY USAGE), for docs/security.md.
 */
const WINDOW_SECONDS = 6;
const QUOTA = 3;

describe('per-partner idempotency quota', () => {
  let auth: TestAuth;

  beforeAll(async () => {
    auth = await testAuth();
  });

  const fx = useService({ env: () => ({ ...auth.env, PARTNER_OUTCOME_QUOTA: String(QUOTA), IDEMPOTENCY_TTL_SECONDS: String(WINDOW_SECONDS) }), requester: true });

  afterAll(async () => {
    auth?.cleanup();
  });

  const createPortIn = async (partner: string, gpsi = gpsiEndingIn('42')): Promise<Reply> =>
    fx.requester.send('portinCommands', PORTIN('CreatePortIn'), createCommand(gpsi), { token: await auth.signer.sign(partner) });

  it("refuses partner alpha's changes over its quota with RATE_LIMITED naming the quota, serves beta, and lets alpha in again as its buckets expire", async () => {
    const statusOf = (reply: Reply) => reply.headers[HEADER.status];
    const alphaFirst = [];
    for (let i = 0; i < QUOTA; i++) alphaFirst.push(statusOf(await createPortIn('alpha')));
    expect(alphaFirst).toEqual(['Success', 'Success', 'Success']);
    // queries record nothing and are never counted
    expect(statusOf(await fx.requester.send('portinCommands', PORTIN('QueryPortIn'), { gpsi: gpsiEndingIn('42') }, { token: await auth.signer.sign('alpha') }))).toBe('NOT_FOUND');

    const refusedGpsi = gpsiEndingIn('42');
    const refused = await createPortIn('alpha', refusedGpsi);
    expect(statusOf(refused)).toBe('RATE_LIMITED');
    expect(refused.value.error.message).toMatch(new RegExp(`^The partner's idempotency quota is exhausted: ${QUOTA} changes recorded within ${WINDOW_SECONDS} s, the quota is ${QUOTA}`));
    expect(await redisSnapshot(fx.service.redis, `${fx.config.redis.keyPrefix}{${refusedGpsi}}*`)).toEqual({}); // nothing applied

    // beta has a quota of its own: alpha being over its quota takes nothing from it
    const beta = [];
    for (let i = 0; i < QUOTA; i++) beta.push(statusOf(await createPortIn('beta')));
    expect(beta).toEqual(['Success', 'Success', 'Success']);

    // A refused change is not cached: once alpha's buckets leave the window, the same command is applied.
    let retried = refused;
    const deadline = Date.now() + (WINDOW_SECONDS + 10) * 1000;
    while (statusOf(retried) === 'RATE_LIMITED' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      retried = await createPortIn('alpha', refusedGpsi);
    }
    expect(statusOf(retried)).toBe('Success');
  });

  it('measures the Redis bytes one recorded change holds (outcome records), printed for docs/security.md', async () => {
    const measured = testConfig({ ...auth.env, PARTNER_OUTCOME_QUOTA: '0' });
    const other = await startTestService(measured);
    const sender = await TestRequester.start(measured);
    try {
      const changes = 50;
      const token = await auth.signer.sign('alpha');
      for (let i = 0; i < changes; i++) {
        const reply = await sender.send('portinCommands', PORTIN('CreatePortIn'), createCommand(gpsiEndingIn('42')), { token, headers: { [HEADER.wholesaleCustomerId]: 'alpha-b1' } });
        expect(reply.headers[HEADER.status]).toBe('Success');
      }
      const keys = Object.keys(await redisSnapshot(other.redis, `${measured.redis.keyPrefix}*`));
      const outcomeKeys = keys.filter((key) => key.includes(':done:') || key.startsWith(`${measured.redis.keyPrefix}reply:`));
      const bytes = async (selected: string[]) => (await Promise.all(selected.map((key) => other.redis.memory('USAGE', key, 'SAMPLES', 0)))).reduce<number>((sum, b) => sum + Number(b ?? 0), 0);
      const outcomeBytes = await bytes(outcomeKeys);
      const allBytes = await bytes(keys);
      expect(outcomeKeys.length).toBeGreaterThanOrEqual(changes);
      // The cheapest change to send: one for a number that does not exist (NOT_FOUND is recorded like any answer).
      for (let i = 0; i < changes; i++) {
        const reply = await sender.send(
          'balanceCommands',
          balanceRecord('AddBuckets'),
          { gpsi: gpsiEndingIn('77'), bucketRefId: ['2000001'] },
          { token, headers: { [HEADER.wholesaleCustomerId]: 'alpha-b1' } },
        );
        expect(reply.headers[HEADER.status]).toBe('NOT_FOUND');
      }
      const afterKeys = Object.keys(await redisSnapshot(other.redis, `${measured.redis.keyPrefix}*`)).filter((key) => !keys.includes(key));
      const notFoundBytes = await bytes(afterKeys);
      console.log(
        `CreatePortIn: ${outcomeKeys.length} outcome records for ${changes} changes, ${Math.round(outcomeBytes / changes)} bytes per change (MEMORY USAGE); ` +
          `all keys incl. the port-in and subscription state: ${Math.round(allBytes / changes)} bytes per change. ` +
          `AddBuckets answered NOT_FOUND: ${afterKeys.length} new keys for ${changes} changes, ${Math.round(notFoundBytes / changes)} bytes per change`,
      );
    } finally {
      await sender.stop();
      await other.stop();
    }
  });
});
