import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { loadFunctionLibrary } from '../../src/adapters/redis/scripts';
import { admissionKey } from '../../src/adapters/redis/keys';
import { createRedisAdmission } from '../../src/adapters/redis/admission';
import type { RunningService } from '../../src/app/service';
import type { ServiceConfig } from '../../src/app/config';
import { HEADER } from '../../src/contract/headers';
import { testAuth, type TestAuth } from '../support/auth';
import { startTestService, testConfig, TestRequester } from '../support/harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const NO_QUOTA = { quota: 0, windowSeconds: 60, buckets: 24 };
const createRedisRateLimiter = (redis: RedisClient, prefix: string, rate: { perSecond: number; burst: number }) => {
  const admission = createRedisAdmission(redis, prefix, rate, NO_QUOTA);
  return { admit: (partnerId: string) => admission.admit(partnerId, false) };
};
const rateLimitKey = admissionKey;

describe('per-partner rate limit', () => {
  describe('the token bucket of the admission script (admissionTake-1.lua) on Redis', () => {
    let redis: RedisClient;
    const prefix = `rl${randomUUID().slice(0, 8)}:`;

    beforeAll(async () => {
      redis = createRedisClient({ urls: [process.env.REDIS_URL!], cluster: false });
      await loadFunctionLibrary(redis); // so a call counted below is never a first one sent again after the load
    });
    afterAll(async () => {
      await redis.quit();
    });

    it('admits a burst, refuses the next with the wait until a token, refills at the rate, and keeps partners apart', async () => {
      const limiter = createRedisRateLimiter(redis, prefix, { perSecond: 10, burst: 5 });
      const burst = await Promise.all(Array.from({ length: 5 }, () => limiter.admit('p1')));
      expect(burst.every((a) => a.allowed)).toBe(true);
      const emptiedAt = Date.now();
      const refused = await limiter.admit('p1');
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(100);
      expect((await limiter.admit('p2')).allowed).toBe(true);
      await sleep(250); // 10 per second: at least two and a half tokens by now
      let refilled = 0;
      while (refilled < 20 && (await limiter.admit('p1')).allowed) refilled++;
      const elapsedMs = Date.now() - emptiedAt;
      expect(refilled).toBeGreaterThanOrEqual(2);
      expect(refilled).toBeLessThanOrEqual(Math.floor(elapsedMs / 100) + 1); // never more than the rate gave (plus the fraction left)
      // The bucket forgets itself once it would be full again anyway (burst / rate + 1 s).
      const ttl = await redis.pttl(rateLimitKey(prefix, 'p1'));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1500);
    });

    it('requests that arrive together take their tokens in one call: the first ones admitted, in order, as many as there are tokens', async () => {
      const limiter = createRedisRateLimiter(redis, prefix, { perSecond: 10, burst: 5 });
      const watcher = new Redis(process.env.REDIS_URL!);
      const monitor = await watcher.monitor();
      const calls: string[] = [];
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (String(args[0]).toLowerCase() === 'fcall' && args.includes(rateLimitKey(prefix, 'p4'))) calls.push(args.at(-7)!);
      });
      const together = await Promise.all(Array.from({ length: 8 }, () => limiter.admit('p4')));
      await sleep(200); // MONITOR reports a little after the command ran
      monitor.disconnect();
      watcher.disconnect();
      expect(together.map((a) => a.allowed)).toEqual([true, true, true, true, true, false, false, false]);
      expect(together[7]!.retryAfterMs).toBeGreaterThan(0);
      expect(together[7]!.retryAfterMs).toBeLessThanOrEqual(100);
      expect(calls).toEqual(['qqqqqqqq']); // one script call asking for eight tokens (eight queries)
    });

    it('RATE_LIMIT_PER_SECOND=0 admits everything without touching Redis', async () => {
      const limiter = createRedisRateLimiter(redis, prefix, { perSecond: 0, burst: 1 });
      const all = await Promise.all(Array.from({ length: 50 }, () => limiter.admit('p3')));
      expect(all.every((a) => a.allowed)).toBe(true);
      expect(await redis.exists(rateLimitKey(prefix, 'p3'))).toBe(0);
    });
  });

  describe('over the real stack', () => {
    let auth: TestAuth;
    let config: ServiceConfig;
    let service: RunningService;
    let requester: TestRequester;

    beforeAll(async () => {
      auth = await testAuth();
      config = testConfig({ ...auth.env, RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '5' });
      service = await startTestService(config);
      requester = await TestRequester.start(config);
    });

    afterAll(async () => {
      await requester?.stop();
      await service?.stop();
      auth?.cleanup();
    });

    it("a burst over the limit gets RATE_LIMITED while another partner is served; brands count against their partner", async () => {
      const eligibility = (token: string, customer?: string) =>
        requester.send('portinCommands', 'wholesale.portin.v1.CheckPortInEligibility', { gpsi: '19459986891' }, {
          token,
          headers: customer ? { [HEADER.wholesaleCustomerId]: customer } : {},
        });
      const alpha = await auth.signer.sign('alpha');
      const beta = await auth.signer.sign('beta');
      // 20 commands of alpha at once, half of them in the name of its brands: one bucket of 5 for all.
      const floodStarted = Date.now();
      const flood = Promise.all(Array.from({ length: 20 }, (_, i) => eligibility(alpha, ['alpha', 'alpha-b1', 'alpha-b2'][i % 3])));
      const others = Promise.all(Array.from({ length: 3 }, () => eligibility(beta)));
      const statuses = (await flood).map((r) => r.headers[HEADER.status]);
      const floodSeconds = (Date.now() - floodStarted) / 1000;
      const served = statuses.filter((s) => s === 'Success').length;
      expect(statuses.filter((s) => s !== 'Success').every((s) => s === 'RATE_LIMITED')).toBe(true);
      expect(served).toBeGreaterThanOrEqual(5);
      expect(served).toBeLessThanOrEqual(5 + Math.ceil(floodSeconds * 2)); // the burst, plus 2 per second while the flood lasted
      expect(served).toBeLessThan(20);
      expect((await others).map((r) => r.headers[HEADER.status])).toEqual(['Success', 'Success', 'Success']);
      const limited = (await flood).find((r) => r.headers[HEADER.status] === 'RATE_LIMITED')!;
      expect(limited.value.error).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/retry in \d+ ms/) });
      // A moment later alpha is served again.
      await sleep(600);
      expect((await eligibility(alpha)).headers[HEADER.status]).toBe('Success');
    });
  });
});
