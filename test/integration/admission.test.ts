import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { admissionKey } from '../../src/adapters/redis/keys';
import { createRedisAdmission } from '../../src/adapters/redis/admission';
import { observeRedisCalls } from '../../src/adapters/redis/call-timing';
import { loadFunctionLibrary } from '../../src/adapters/redis/scripts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const NO_RATE = { perSecond: 0, burst: 1, backlogSeconds: 120 };
const now = () => Date.now();

/**
 * The partner's idempotency quota, decided with its rate in one script call per partner and event-loop turn
 * (admissionTake-1.lua), on a real Redis: changes counted in order while the quota lasts, queries never,
 * uncounted changes taken back at the next call, the count falling back as its buckets leave the window.
 */
describe('admission: the idempotency quota on Redis', () => {
  let redis: RedisClient;
  const prefix = `adm${randomUUID().slice(0, 8)}:`;

  beforeAll(async () => {
    redis = createRedisClient({ urls: [process.env.REDIS_URL!], cluster: false });
    // Loaded now, so the calls counted below are the admission's only (a first call finding no library
    // would be sent again once it is loaded).
    await loadFunctionLibrary(redis);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('counts the changes of one turn in order while the quota lasts, in one call; queries are admitted with no call and not counted', async () => {
    const admission = createRedisAdmission(redis, prefix, NO_RATE, { quota: 2, windowSeconds: 60, buckets: 24 });
    const watcher = new Redis(process.env.REDIS_URL!);
    const monitor = await watcher.monitor();
    const calls: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (String(args[0]).toLowerCase() === 'fcall' && args.includes(admissionKey(prefix, 'q1'))) calls.push(args);
    });
    const kinds = [true, false, true, false, true];
    const admitted = await Promise.all(kinds.map((isChange) => admission.admit('q1', isChange, now())));
    await sleep(200); // MONITOR reports a little after the command ran
    monitor.disconnect();
    watcher.disconnect();
    expect(admitted.map((a) => a.allowed)).toEqual([true, true, true, true, true]);
    expect(admitted.map((a) => a.quotaExhausted)).toEqual([undefined, undefined, undefined, undefined, { held: 2, quota: 2, windowSeconds: 60 }]);
    expect(calls.map((args) => args.at(-9))).toEqual(['ccc']); // with no rate limit a query asks for nothing
    // Past the quota a change is still admitted (it may replay its recorded outcome), never counted.
    expect((await admission.admit('q1', true, now())).quotaExhausted).toEqual({ held: 2, quota: 2, windowSeconds: 60 });
  });

  it("takes an uncounted change back at the partner's next call, so the quota lets one more in", async () => {
    const admission = createRedisAdmission(redis, prefix, NO_RATE, { quota: 1, windowSeconds: 60, buckets: 24 });
    expect((await admission.admit('q2', true, now())).quotaExhausted).toBeUndefined();
    expect((await admission.admit('q2', true, now())).quotaExhausted).toEqual({ held: 1, quota: 1, windowSeconds: 60 });
    admission.uncount('q2'); // say, the first was a redelivery answered from its record
    expect((await admission.admit('q2', true, now())).quotaExhausted).toBeUndefined();
    // never below zero: more uncounts than counted changes leave the count at zero, not in credit
    admission.uncount('q2');
    admission.uncount('q2');
    admission.uncount('q2');
    expect((await admission.admit('q2', true, now())).quotaExhausted).toBeUndefined();
    expect((await admission.admit('q2', true, now())).quotaExhausted).toEqual({ held: 1, quota: 1, windowSeconds: 60 });
  });

  it('lets the count fall back as its buckets leave the window, dropping them from the hash', async () => {
    const admission = createRedisAdmission(redis, prefix, NO_RATE, { quota: 2, windowSeconds: 2, buckets: 2 }); // buckets of 1 s
    await Promise.all([admission.admit('q3', true, now()), admission.admit('q3', true, now())]);
    expect((await admission.admit('q3', true, now())).quotaExhausted).toBeDefined();
    await sleep(3100);
    const again = await Promise.all([admission.admit('q3', true, now()), admission.admit('q3', true, now())]);
    expect(again.map((a) => a.quotaExhausted)).toEqual([undefined, undefined]);
    const buckets = Object.keys(await redis.hgetall(admissionKey(prefix, 'q3')));
    expect(buckets).toHaveLength(1); // the old bucket is gone, only this second's remains
    expect(await redis.pttl(admissionKey(prefix, 'q3'))).toBeLessThanOrEqual(3000); // window + one bucket
  });

  it('with no rate limit, queries cost no Redis call at all', async () => {
    const admission = createRedisAdmission(redis, prefix, NO_RATE, { quota: 5, windowSeconds: 60, buckets: 24 });
    const all = await Promise.all(Array.from({ length: 20 }, () => admission.admit('q4', false, now())));
    expect(all.every((a) => a.allowed && a.quotaExhausted === undefined)).toBe(true);
    expect(await redis.exists(admissionKey(prefix, 'q4'))).toBe(0);
  });

  it('a rate and a quota together: commands past the tokens are refused and not counted', async () => {
    const admission = createRedisAdmission(redis, prefix, { perSecond: 1, burst: 2, backlogSeconds: 120 }, { quota: 10, windowSeconds: 60, buckets: 24 });
    const admitted = await Promise.all([true, true, true, true, true].map((isChange) => admission.admit('q5', isChange, now())));
    expect(admitted.map((a) => a.allowed)).toEqual([true, true, true, false, false]);
    const state = await redis.hgetall(admissionKey(prefix, 'q5'));
    const counted = Object.entries(state)
      .filter(([field]) => /^\d+$/.test(field))
      .reduce((sum, [, value]) => sum + Number(value), 0);
    expect(counted).toBe(3);
  });

  it('takes a lease of quota counts ahead when no rate is limited: the next changes are admitted with no call, and the total stays within the quota', async () => {
    let calls = 0;
    observeRedisCalls(redis, (operation) => void (operation === 'admissionTake' && calls++));
    try {
      // a quota of 5,000: leases of 5 counts
      const worker = () => createRedisAdmission(redis, prefix, NO_RATE, { quota: 5000, windowSeconds: 60, buckets: 24 });
      const [a, b] = [worker(), worker()];
      for (let i = 0; i < 7; i++) expect((await a.admit('l1', true, now())).allowed).toBe(true);
      expect(calls).toBe(2); // one call took the first count and 5 ahead; the seventh change asked again
      // Two workers spend the partner's quota between them, 100 changes at a time.
      let recordable = 0;
      for (let round = 0; round < 30; round++) {
        const admitted = await Promise.all([a, b].flatMap((w) => Array.from({ length: 100 }, () => w.admit('l2', true, now()))));
        expect(admitted.every((x) => x.allowed)).toBe(true);
        recordable += admitted.filter((x) => !x.quotaExhausted).length;
      }
      expect(recordable).toBeLessThanOrEqual(5000);
      expect(recordable).toBeGreaterThanOrEqual(5000 - 2 * 5); // at most a lease unused in each worker
      const state = await redis.hgetall(admissionKey(prefix, 'l2'));
      const counted = Object.entries(state)
        .filter(([field]) => /^\d+$/.test(field))
        .reduce((sum, [, value]) => sum + Number(value), 0);
      expect(counted).toBe(5000);
    } finally {
      observeRedisCalls(redis, () => undefined);
    }
  });
});
