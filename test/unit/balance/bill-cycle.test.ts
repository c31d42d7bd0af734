import fc from 'fast-check';
import { cycleStartAtOrBefore, nextCycleStart } from '../../../src/domain/balance/bill-cycle';
import { createBillingClock } from '../../../src/domain/balance/clock';

const at = (iso: string) => new Date(iso);

/** Local date and time of an instant in a zone, as 'YYYY-MM-DD HH:mm'. */
const local = (instant: Date, timeZone: string) =>
  new Intl.DateTimeFormat('sv-SE', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(instant);

describe('bill cycles in a time zone', () => {
  it.each([
    // A New York cycle on the 1st starts at 00:00 local = 05:00Z (EST): at 22:00 local on Feb 28 it is still February's.
    ['2026-03-01T03:00:00Z', 1, 'America/New_York', '2026-02-01T05:00:00.000Z', '2026-03-01T05:00:00.000Z'],
    // Spring forward (March 8): March 15 00:00 EDT is 04:00Z.
    ['2026-03-10T12:00:00Z', 15, 'America/New_York', '2026-02-15T05:00:00.000Z', '2026-03-15T04:00:00.000Z'],
    // Fall back on November 1 itself (at 02:00): that day's midnight is still EDT.
    ['2026-11-20T03:00:00Z', 1, 'America/New_York', '2026-11-01T04:00:00.000Z', '2026-12-01T05:00:00.000Z'],
    // East of UTC the cycle starts the evening before in UTC; Berlin's summer time starts March 29.
    ['2026-03-31T22:30:00Z', 1, 'Europe/Berlin', '2026-03-31T22:00:00.000Z', '2026-04-30T22:00:00.000Z'],
    // Santiago skipped midnight on 2022-09-11 (00:00 -> 01:00): the day, and the cycle, start at 01:00 local.
    ['2022-09-20T03:00:00Z', 11, 'America/Santiago', '2022-09-11T04:00:00.000Z', '2022-10-11T03:00:00.000Z'],
  ])('at %s, day %i in %s: cycle %s, next %s', (instant, day, zone, start, next) => {
    expect(cycleStartAtOrBefore(at(instant), day, zone).toISOString()).toBe(start);
    expect(nextCycleStart(at(instant), day, zone).toISOString()).toBe(next);
  });

  it('UTC is the default and the same as before zones', () => {
    expect(cycleStartAtOrBefore(at('2026-03-01T03:00:00Z'), 1).toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(cycleStartAtOrBefore(at('2026-03-01T03:00:00Z'), 1, 'UTC').toISOString()).toBe('2026-03-01T00:00:00.000Z');
  });

  it('in any zone, contains the instant, starts at local midnight of the start day, and the next starts where it ends', () => {
    const zones = ['America/New_York', 'America/Los_Angeles', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham'];
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2040-01-01T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: 1, max: 28 }),
        fc.constantFrom(...zones),
        (instant, day, zone) => {
          const start = cycleStartAtOrBefore(instant, day, zone);
          const next = nextCycleStart(instant, day, zone);
          expect(start.getTime()).toBeLessThanOrEqual(instant.getTime());
          expect(next.getTime()).toBeGreaterThan(instant.getTime());
          for (const boundary of [start, next]) expect(local(boundary, zone)).toMatch(new RegExp(`-${String(day).padStart(2, '0')} 00:00$`));
          expect(cycleStartAtOrBefore(next, day, zone)).toEqual(next);
          expect(cycleStartAtOrBefore(new Date(next.getTime() - 1), day, zone)).toEqual(start);
        },
      ),
    );
  });
});

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
