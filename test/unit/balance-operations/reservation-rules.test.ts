import fc from 'fast-check';
import { applyQuantity } from '../../../src/domain/balance/arithmetic';
import { availableOf, commitAmounts, overUse, releaseAmounts, reserveAmounts, type Held } from '../../../src/domain/balance-operations/reservation-rules';

/**
 * The invariant of a sub-balance under reservations: granted = used + reserved + available, where granted is
 * what it started with plus every top-up, used every unit taken (usage and commits), reserved the sum of the
 * live reservations and available = remaining − reserved. Random histories of reserve, commit, release,
 * top-up and usage (a usage may not take what is held, as balancesUpdate-4.lua refuses it).
 */
type Step =
  | { kind: 'reserve'; amount: number }
  | { kind: 'commit'; pick: number; usedShare: number }
  | { kind: 'release'; pick: number }
  | { kind: 'add'; amount: number }
  | { kind: 'subtract'; amount: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('reserve' as const), amount: fc.integer({ min: 1, max: 5_000_000 }) }),
  fc.record({ kind: fc.constant('commit' as const), pick: fc.nat(), usedShare: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('add' as const), amount: fc.integer({ min: 1, max: 2_000_000 }) }),
  fc.record({ kind: fc.constant('subtract' as const), amount: fc.integer({ min: 1, max: 3_000_000 }) }),
);

describe('reservation rules', () => {
  it('keep granted = used + reserved + available and reserved = the sum of the live reservations over any history', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.array(step, { maxLength: 40 }), (start, steps) => {
        let b: Held = { remaining: start, purchased: 0, reserved: 0 };
        let granted = start;
        let used = 0;
        const live: number[] = [];
        for (const s of steps) {
          if (s.kind === 'reserve') {
            const after = reserveAmounts(b, s.amount);
            if ('reason' in after) {
              expect(s.amount).toBeGreaterThan(availableOf(b));
              expect(after.reason).toContain(`requested ${s.amount / 1000}, available ${availableOf(b) / 1000}`);
            } else {
              b = after;
              live.push(s.amount);
            }
          } else if ((s.kind === 'commit' || s.kind === 'release') && live.length > 0) {
            const [held] = live.splice(s.pick % live.length, 1);
            if (s.kind === 'release') b = releaseAmounts(b, held);
            else {
              const usedNow = Math.floor(held * s.usedShare);
              const { charged, ...after } = commitAmounts(b, held, usedNow);
              expect(charged).toBe(usedNow); // nothing outside a renewal lowers remaining under what is held
              used += charged;
              b = after;
            }
          } else if (s.kind === 'add') {
            const after = applyQuantity(b, 'Add', s.amount);
            if (!('reason' in after)) {
              b = { ...b, ...after };
              granted += s.amount;
            }
          } else if (s.kind === 'subtract' && b.remaining - s.amount >= b.reserved) {
            b = { ...b, ...(applyQuantity(b, 'Subtract', s.amount) as Pick<Held, 'remaining' | 'purchased'>) };
            used += s.amount;
          }
          expect(b.reserved).toBe(live.reduce((a, x) => a + x, 0));
          expect(granted).toBe(used + b.reserved + availableOf(b));
          expect(b.purchased).toBeGreaterThanOrEqual(0);
          expect(b.purchased).toBeLessThanOrEqual(b.remaining);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a commit takes what was used from the grant first, then from purchased credit, and charges at most what remains', () => {
    expect(commitAmounts({ remaining: 5000, purchased: 3000, reserved: 4000 }, 4000, 2500)).toEqual({ remaining: 2500, purchased: 2500, reserved: 0, charged: 2500 });
    expect(commitAmounts({ remaining: 1000, purchased: 0, reserved: 4000 }, 4000, 2500)).toEqual({ remaining: 0, purchased: 0, reserved: 0, charged: 1000 });
  });

  it('refuses a reservation above what is available and a use above what was reserved, naming both figures', () => {
    expect(reserveAmounts({ remaining: 10_000, purchased: 0, reserved: 7_500 }, 3_000)).toEqual({ reason: 'exceeds the available balance (requested 3, available 2.5)' });
    expect(reserveAmounts({ remaining: 10_000, purchased: 0, reserved: 7_500 }, 2_500)).toEqual({ remaining: 10_000, purchased: 0, reserved: 10_000 });
    expect(overUse(2_000, 2_001)).toBe('exceeds the reserved amount (used 2.001, reserved 2)');
    expect(overUse(2_000, 2_000)).toBeUndefined();
  });

  it('never shows less than nothing available when a renewal left remaining under what is held', () => {
    expect(availableOf({ remaining: 1_000, reserved: 4_000 })).toBe(0);
  });
});
