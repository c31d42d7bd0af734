import { Backoff, backoffDelayMs, retry, withJitter } from '../../../src/shared/retry';

describe('withJitter', () => {
  it('keeps half the delay and draws the other half', () => {
    expect([withJitter(1000, () => 0), withJitter(1000, () => 0.5), withJitter(1000, () => 0.999999)]).toEqual([500, 750, 1000]);
  });
});

describe('Backoff', () => {
  it('doubles from the initial delay up to the cap, each delay jittered', () => {
    const fixed = new Backoff({ initialMs: 100, maxMs: 500 }, () => 1);
    expect(Array.from({ length: 5 }, () => fixed.next())).toEqual([100, 200, 400, 500, 500]);
    const low = new Backoff({ initialMs: 100, maxMs: 500 }, () => 0);
    expect(Array.from({ length: 4 }, () => low.next())).toEqual([50, 100, 200, 250]);
  });

  it('starts again from the initial delay once reset', () => {
    const restarts = new Backoff({ initialMs: 500, maxMs: 10_000, jitter: 'none' });
    expect(Array.from({ length: 6 }, () => restarts.next())).toEqual([500, 1000, 2000, 4000, 8000, 10_000]);
    restarts.reset();
    expect(restarts.next()).toBe(500);
  });
});

describe('backoffDelayMs', () => {
  it('waits exactly without jitter, anything from 0 with full jitter, half fixed by default', () => {
    const settings = { initialMs: 1000, maxMs: 30_000 };
    expect(backoffDelayMs({ ...settings, jitter: 'none' }, 3, () => 0)).toBe(8000);
    expect(backoffDelayMs({ ...settings, jitter: 'full' }, 3, () => 0)).toBe(0);
    expect(backoffDelayMs({ ...settings, jitter: 'full' }, 0, () => 0.999)).toBe(999);
    expect(backoffDelayMs(settings, 3, () => 0)).toBe(4000);
    expect(backoffDelayMs({ ...settings, jitter: 'none' }, 1000, () => 0)).toBe(30_000);
  });
});

describe('retry', () => {
  const failing = (failures: number, error: unknown = new Error('away')) => {
    let calls = 0;
    const attempt = jest.fn(async () => {
      if (++calls <= failures) throw error;
      return calls;
    });
    return attempt;
  };
  const quick = { initialMs: 1, maxMs: 2 };

  it('tries again until the attempt succeeds', async () => {
    const attempt = failing(2);
    await expect(retry(attempt, { backoff: quick, attempts: 5 })).resolves.toBe(3);
    expect(attempt).toHaveBeenCalledTimes(3);
  });

  it('throws the last failure once the attempts are used up', async () => {
    const attempt = failing(10);
    await expect(retry(attempt, { backoff: quick, attempts: 3 })).rejects.toThrow('away');
    expect(attempt).toHaveBeenCalledTimes(3);
  });

  it('throws at once a failure that is not retriable', async () => {
    const attempt = failing(10, Object.assign(new Error('refused'), { retriable: false }));
    await expect(retry(attempt, { backoff: quick, attempts: 5, retriable: (e) => (e as { retriable?: boolean }).retriable !== false })).rejects.toThrow('refused');
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it('starts no try after the timeout', async () => {
    const attempt = failing(1000);
    const started = Date.now();
    await expect(retry(attempt, { backoff: { initialMs: 20, maxMs: 20 }, timeoutMs: 100 })).rejects.toThrow('away');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(attempt.mock.calls.length).toBeGreaterThan(2);
    expect(attempt.mock.calls.length).toBeLessThan(20);
  });
});
