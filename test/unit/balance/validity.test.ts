import fc from 'fast-check';
import { purchasedUntilAfterTopUp, validityEnd } from '../../../src/domain/balance/validity';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('validity periods', () => {
  it("one cycle bought on the cycle's last day lasts a month from then, not until midnight", () => {
    expect(iso(validityEnd(at('2026-03-31T12:00:00Z'), { cycles: 1 }))).toBe('2026-04-30T12:00:00.000Z'); // 31 March → 30 April (the month's last day)
    expect(iso(validityEnd(at('2026-01-31T23:59:00Z'), { cycles: 1 }))).toBe('2026-02-28T23:59:00.000Z');
    expect(iso(validityEnd(at('2028-01-30T08:00:00Z'), { cycles: 1 }))).toBe('2028-02-29T08:00:00.000Z'); // leap year
    expect(iso(validityEnd(at('2026-11-15T10:00:00Z'), { cycles: 3 }))).toBe('2027-02-15T10:00:00.000Z');
  });

  it('cycles are calendar months at the same local time in the bill cycle zone, across daylight saving', () => {
    // 12:00 in New York on 1 March (EST, 17:00Z) → 12:00 on 1 April (EDT, 16:00Z).
    expect(iso(validityEnd(at('2026-03-01T17:00:00Z'), { cycles: 1 }, 'America/New_York'))).toBe('2026-04-01T16:00:00.000Z');
    // 02:30 on 8 February → 8 March, a time the change skips in New York: the instant the gap ends at, 03:30 EDT.
    expect(iso(validityEnd(at('2026-02-08T07:30:00Z'), { cycles: 1 }, 'America/New_York'))).toBe('2026-03-08T07:30:00.000Z');
    // 01:30 on 1 October → 1 November, a time that happens twice: the first one (EDT).
    expect(iso(validityEnd(at('2026-10-01T05:30:00Z'), { cycles: 1 }, 'America/New_York'))).toBe('2026-11-01T05:30:00.000Z');
  });

  it('days are 24-hour periods, whatever the zone', () => {
    expect(iso(validityEnd(at('2026-03-05T17:00:00Z'), { days: 7 }, 'America/New_York'))).toBe('2026-03-12T17:00:00.000Z');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: 1, max: 1000 }), (start, days) => {
        expect(validityEnd(start, { days })).toBe(start + days * 86_400_000);
      }),
    );
  });

  it('a period always ends after it starts, within one to N months plus a day', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2090, 0, 1) }),
        fc.integer({ min: 1, max: 24 }),
        fc.constantFrom('UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Sydney'),
        (start, cycles, zone) => {
          const end = validityEnd(start, { cycles }, zone);
          expect(end).toBeGreaterThan(start + (cycles * 28 - 1) * 86_400_000);
          expect(end).toBeLessThanOrEqual(start + (cycles * 31 + 1) * 86_400_000);
        },
      ),
    );
  });

  it('a top-up extends the purchased credit to the later end; credit without an end keeps none', () => {
    expect(purchasedUntilAfterTopUp({ purchased: 0 }, 100)).toBe(100);
    expect(purchasedUntilAfterTopUp({ purchased: 5, purchasedUntil: 300 }, 100)).toBe(300);
    expect(purchasedUntilAfterTopUp({ purchased: 5, purchasedUntil: 50 }, 100)).toBe(100);
    expect(purchasedUntilAfterTopUp({ purchased: 5 }, 100)).toBeUndefined(); // held credit never expired: nor does the new
    expect(purchasedUntilAfterTopUp({ purchased: 5, purchasedUntil: 50 }, undefined)).toBeUndefined(); // a type without validity
    expect(purchasedUntilAfterTopUp({ purchased: 0, purchasedUntil: 50 }, 100)).toBe(100); // no credit held: its old end is moot
  });
});
