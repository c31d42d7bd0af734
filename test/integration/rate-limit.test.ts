import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { loadFunctionLibrary } from '../../src/adapters/redis/scripts';
import { admissionKey } from '../../src/adapters/redis/keys';
import { createRedisAdmission } from '../../src/adapters/redis/admission';
import { HEADER } from '../../src/contract/headers';
import { testAuth, type TestAuth } from '../support/auth';
import { useService } from '../support/service-fixture';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const NO_QUOTA = { quota: 0, windowSeconds: 60, buckets: 24 };
const createRedisRateLimiter = (redis: RedisClient, prefix: string, rate: { perSecond: number; burst: number }) => {
  const admission = createRedisAdmission(redis, prefix, { ...rate, backlogSeconds: 120 }, NO_QUOTA);
  return { admit: (partnerId: string, sentAtMs = Date.now()) => admission.admit(partnerId, false, sentAtMs), refund: admission.refund.bind(admission) };
};
const rateLimitKey = admissionKey;
/** Shuffled (Fisher–Yates with a fixed seed): records of several partitions are handled in no particular order. */
const shuffled = <T>(items: T[]): T[] => {
  const out = [...items];
  let seed = 7;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 16807) % 2147483647;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};

describe('per-partner rate limit', () => {
  describe('the send-time windows of the admission script (admissionTake-1.lua) on Redis', () => {
    let redis: RedisClient;
    const prefix = `rl${randomUUID().slice(0, 8)}:`;

    beforeAll(async () => {
      redis = createRedisClient({ urls: [process.env.REDIS_URL!], cluster: false });
      await loadFunctionLibrary(redis); // so a call counted below is never a first one sent again after the load
    });
    afterAll(async () => {
      await redis.quit();
    });

    it('admits burst + rate commands sent in one second, refuses the next with the wait until the next second, and keeps partners apart', async () => {
      const limiter = createRedisRateLimiter(redis, prefix, { perSecond: 10, burst: 5 });
      const second = Math.floor(Date.now() / 1000) * 1000 - 5000; // every command "sent" in this one second, 5 s ago
      const sent = await Promise.all(Array.from({ length: 16 }, () => limiter.admit('p1', second + 500)));
      expect(sent.map((a) => a.allowed)).toEqual([...Array(15).fill(true), false]);
      expect(sent[15].retryAfterMs).toBeGreaterThan(0);
      expect(sent[15].retryAfterMs).toBeLessThanOrEqual(1000);
      expect((await limiter.admit('p2', second + 500)).allowed).toBe(true);
      // The next second of sending has room again; the key lives while a second can still be checked.
      expect((await limiter.admit('p1', second + 1500)).allowed).toBe(true);
      const ttl = await redis.pttl(rateLimitKey(prefix, 'p1'));
      expect(ttl).toBeGreaterThan(120_000);
      expect(ttl).toBeLessThanOrEqual(181_000);
    });

    it('charges a backlog to when it was sent: 30 s of commands at 9/s admitted whole when handled at once, in any order', async () => {
      const limiter = createRedisRateLimiter(redis, prefix, { perSecond: 10, burst: 5 });
      const now = Date.now();
      const sentTimes = Array.from({ length: 270 }, (_, i) => now - 30_000 + Math.floor((i * 1000) / 9));
      const admitted = await Promise.all(shuffled(sentTimes).map((at) => limiter.admit('b1', at)));
      expect(admitted.filter((a) => !a.allowed)).toHaveLength(0);
      // The same number of commands sent now is a flood: only burst + rate of them pass.
      const flood = await Promise.all(Array.from({ length: 270 }, () => limiter.admit('b2', now)));
      expect(flood.filter((a) => a.allowed)).toHaveLength(15);
    });

    it('holds a flood to its rate: of 60 s of sending at 50/s, at most burst + rate per second of sending are admitted', async () => {
      const limiter = createRedisRateLimiter(redis, prefix, { perSecond: 10, burst: 5 });
      const now = Date.now();
      const sentTimes = Array.from({ length: 3000 }, (_, i) => now - 60_000 + Math.floor(i * 20));
      const admitted = (await Promise.all(sentTimes.map((at) => limiter.admit('f1', at)))).filter((a) => a.allowed).length;
      // 60 s of sending touch 61 seconds: the last 60 hold at most burst + 60 x rate, the first burst + rate
      const seconds = new Set(sentTimes.map((at) => Math.floor(at / 1000))).size;
      expect(admitted).toBeLessThanOrEqual(5 + 60 * 10 + (seconds - 60) * 15);
      expect(admitted).toBeGreaterThanOrEqual(60 * 10 - 15); // and the rate is given: the flood is not starved
    });

    it('takes a future send time as now and one older than the backlog as its start: a forged timestamp buys at most the backlog, once', async () => {
      const limiter = createRedisRateLimiter(redis, prefix, { perSecond: 10, burst: 5 });
      const now = Date.now();
      const future = await Promise.all(Array.from({ length: 40 }, () => limiter.admit('x1', now + 3_600_000)));
      expect(future.filter((a) => a.allowed).length).toBeLessThanOrEqual(30); // this second and the next at most
      const ancient = await Promise.all(Array.from({ length: 40 }, () => limiter.admit('x2', now - 86_400_000)));
      expect(ancient.filter((a) => a.allowed).length).toBeLessThanOrEqual(30);
    });

    it('a refunded command (answered from its recorded outcome) gives its second back', async () => {
      const limiter = createRedisRateLimiter(redis, prefix, { perSecond: 10, burst: 5 });
      const at = Math.floor(Date.now() / 1000) * 1000 + 100;
      await Promise.all(Array.from({ length: 15 }, () => limiter.admit('r1', at)));
      expect((await limiter.admit('r1', at)).allowed).toBe(false);
      limiter.refund('r1', at);
      limiter.refund('r1', at);
      expect((await Promise.all([limiter.admit('r1', at), limiter.admit('r1', at), limiter.admit('r1', at)])).map((a) => a.allowed)).toEqual([true, true, false]);
    });

    it('a repeat of a change this worker charged (a redelivery, a re-send with the same id) passes free, three times at most', async () => {
      const admission = createRedisAdmission(redis, prefix, { perSecond: 1, burst: 1, backlogSeconds: 120 }, NO_QUOTA);
      const at = Math.floor(Date.now() / 1000) * 1000 - 3000;
      const first = await Promise.all(['c1', 'c2', 'c3'].map((id) => admission.admit('d1', true, at, id)));
      expect(first.map((a) => [a.allowed, a.repeat])).toEqual([
        [true, undefined],
        [true, undefined],
        [false, undefined],
      ]);
      const repeats = [];
      for (let i = 0; i < 4; i++) repeats.push(await admission.admit('d1', true, at, 'c1'));
      expect(repeats.map((a) => [a.allowed, a.repeat])).toEqual([
        [true, true],
        [true, true],
        [true, true],
        [false, undefined],
      ]);
      expect((await admission.admit('d2', true, at, 'c1')).repeat).toBeUndefined(); // another partner's command
    });

    it('a change admitted past its idempotency quota may only replay: its repeats are charged and marked again, never let in free', async () => {
      const admission = createRedisAdmission(redis, prefix, { perSecond: 100, burst: 100, backlogSeconds: 120 }, { quota: 1, windowSeconds: 60, buckets: 24 });
      const at = Date.now();
      expect((await admission.admit('d3', true, at, 'k1')).quotaExhausted).toBeUndefined();
      const past = await admission.admit('d3', true, at, 'k2');
      expect([past.allowed, past.quotaExhausted?.quota]).toEqual([true, 1]);
      const again = await admission.admit('d3', true, at, 'k2');
      expect([again.allowed, again.repeat, again.quotaExhausted?.quota]).toEqual([true, undefined, 1]);
      expect((await admission.admit('d3', true, at, 'k1')).repeat).toBe(true); // the one recorded within the quota repeats free
    });

    it('requests that arrive together are decided in one call, in order', async () => {
      const limiter = createRedisRateLimiter(redis, prefix, { perSecond: 3, burst: 2 });
      const watcher = new Redis(process.env.REDIS_URL!);
      const monitor = await watcher.monitor();
      const calls: string[] = [];
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (String(args[0]).toLowerCase() === 'fcall' && args.includes(rateLimitKey(prefix, 'p4'))) calls.push(args.at(-9)!);
      });
      const at = Date.now();
      const together = await Promise.all(Array.from({ length: 8 }, () => limiter.admit('p4', at)));
      await sleep(200); // MONITOR reports a little after the command ran
      monitor.disconnect();
      watcher.disconnect();
      expect(together.map((a) => a.allowed)).toEqual([true, true, true, true, true, false, false, false]);
      expect(calls).toEqual(['qqqqqqqq']); // one script call for eight queries
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

    beforeAll(async () => {
      auth = await testAuth();
    });

    const fx = useService({ env: () => ({ ...auth.env, RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '5' }), requester: true });

    afterAll(async () => {
      auth?.cleanup();
    });

    it('a burst over the limit gets RATE_LIMITED while another partner is served; brands count against their partner', async () => {
      const eligibility = (token: string, customer?: string) =>
        fx.requester.send(
          'portinCommands',
          'wholesale.portin.v1.CheckPortInEligibility',
          { gpsi: '19459986891' },
          {
            token,
            headers: customer ? { [HEADER.wholesaleCustomerId]: customer } : {},
          },
        );
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
      // burst + rate (7) per second of sending; the flood is sent within a second or two
      expect(served).toBeGreaterThanOrEqual(7);
      expect(served).toBeLessThanOrEqual(7 * Math.ceil(floodSeconds + 1));
      expect(served).toBeLessThan(20);
      expect((await others).map((r) => r.headers[HEADER.status])).toEqual(['Success', 'Success', 'Success']);
      const limited = (await flood).find((r) => r.headers[HEADER.status] === 'RATE_LIMITED')!;
      expect(limited.value.error).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/retry in \d+ ms/) });
      // In the next second of sending alpha is served again.
      await sleep(1100);
      expect((await eligibility(alpha)).headers[HEADER.status]).toBe('Success');
    });
  });
});
