import fc from 'fast-check';
import { cycleStartAtOrBefore, nextCycleStart } from '../../../src/domain/balance/bill-cycle';
import { createBillingClock } from '../../../src/domain/balance/clock';

const at = (iso: string) => new Date(iso);

describe('monthly bill cycles on billCycleStartDay', () => {
  it.each([
    ['2026-03-10T12:00:00Z', 15, '2026-02-15T00:00:00.000Z', '2026-03-15T00:00:00.000Z'],
    ['2026-03-15T00:00:00Z', 15, '2026-03-15T00:00:00.000Z', '2026-04-15T00:00:00.000Z'],
    ['2026-03-20T08:30:00Z', 15, '2026-03-15T00:00:00.000Z', '2026-04-15T00:00:00.000Z'],
    ['2026-01-05T00:00:00Z', 28, '2025-12-28T00:00:00.000Z', '2026-01-28T00:00:00.000Z'],
    ['2026-12-31T23:59:59Z', 1, '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['2026-02-28T10:00:00Z', 28, '2026-02-28T00:00:00.000Z', '2026-03-28T00:00:00.000Z'],
  ])('at %s with start day %d the cycle runs from %s to %s', (now, day, start, next) => {
    expect(cycleStartAtOrBefore(at(now), day).toISOString()).toBe(start);
    expect(nextCycleStart(at(now), day).toISOString()).toBe(next);
  });

  it('always contains the instant, starts on the start day at midnight UTC, and lasts one calendar month', () => {
    const instants = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }).map((ms) => new Date(ms));
    fc.assert(
      fc.property(instants, fc.integer({ min: 1, max: 28 }), (now, day) => {
        const start = cycleStartAtOrBefore(now, day);
        const next = nextCycleStart(now, day);
        expect(start.getTime()).toBeLessThanOrEqual(now.getTime());
        expect(next.getTime()).toBeGreaterThan(now.getTime());
        for (const d of [start, next]) {
          expect(d.getUTCDate()).toBe(day);
          expect(d.getUTCHours() + d.getUTCMinutes() + d.getUTCSeconds() + d.getUTCMilliseconds()).toBe(0);
        }
        expect((next.getUTCFullYear() - start.getUTCFullYear()) * 12 + next.getUTCMonth() - start.getUTCMonth()).toBe(1);
        expect(nextCycleStart(start, day).getTime()).toBe(next.getTime());
      }),
    );
  });
});

describe('billing clock', () => {
  it('is the wall clock at scale 1', () => {
    const clock = createBillingClock(1, 0, () => 1_700_000_000_000);
    expect(clock.now().getTime()).toBe(1_700_000_000_000);
    expect(clock.toRealMs(new Date(1_700_000_500_000))).toBe(1_700_000_500_000);
  });

  it('runs `scale` times faster from its origin and maps billing times back to real ones', () => {
    const origin = Date.UTC(2026, 0, 1);
    let real = origin + 1000;
    const clock = createBillingClock(86_400, origin, () => real); // one real second = one billing day
    expect(clock.now().toISOString()).toBe('2026-01-02T00:00:00.000Z');
    const due = new Date('2026-01-15T00:00:00Z');
    real = clock.toRealMs(due);
    expect(real).toBe(origin + 14_000);
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(due.getTime());
  });

  it('refuses a scale below 1', () => {
    expect(() => createBillingClock(0, 0)).toThrow('at least 1');
  });
});
