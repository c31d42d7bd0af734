import { createReadiness, withTimeout } from '../../../src/observability/readiness';

const never = () => new Promise<never>(() => undefined);

describe('createReadiness', () => {
  it('is ready when every check passes, and names each failed check with its reason otherwise', async () => {
    const readiness = createReadiness(
      {
        kafka: async () => ({ ok: true, detail: '3 broker(s)' }),
        redis: async () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:6390');
        },
        consumer: async () => ({ ok: false, detail: 'not in the consumer group g (last event: rebalancing)' }),
      },
      { cacheMs: 0, timeoutMs: 1000 },
    );
    const report = await readiness();
    expect(report.ready).toBe(false);
    expect(report.failed.sort()).toEqual(['consumer', 'redis']);
    expect(report.checks.redis).toMatchObject({ ok: false, detail: 'connect ECONNREFUSED 127.0.0.1:6390' });
    expect(report.checks.kafka).toMatchObject({ ok: true, detail: '3 broker(s)' });
  });

  it('fails a check that does not answer within the timeout, without waiting for it', async () => {
    const readiness = createReadiness({ registry: never, redis: async () => ({ ok: true }) }, { cacheMs: 0, timeoutMs: 50 });
    const started = Date.now();
    const report = await readiness();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(report).toMatchObject({ ready: false, failed: ['registry'] });
    expect(report.checks.registry.detail).toBe('registry did not answer within 50 ms');
  });

  it('runs the checks once per cache period, and shares an evaluation in flight', async () => {
    let now = 1000;
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const readiness = createReadiness(
      {
        redis: async () => {
          calls++;
          await gate;
          return { ok: true };
        },
      },
      { cacheMs: 500, timeoutMs: 10_000, now: () => now },
    );
    const first = readiness();
    now += 2000; // still in flight: shared, however long it takes
    const second = readiness();
    release();
    expect(await first).toBe(await second);
    expect(calls).toBe(1);
    now += 400;
    await readiness();
    expect(calls).toBe(1);
    now += 200;
    await readiness();
    expect(calls).toBe(2);
  });
});

describe('withTimeout', () => {
  it('passes the answer through and leaves no unhandled rejection behind a timeout', async () => {
    await expect(withTimeout(Promise.resolve(7), 100, 'x')).resolves.toBe(7);
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error('late')), 30));
    await expect(withTimeout(late, 5, 'slow thing')).rejects.toThrow('slow thing did not answer within 5 ms');
    await new Promise((resolve) => setTimeout(resolve, 50));
  });
});
