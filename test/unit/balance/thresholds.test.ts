import fc from 'fast-check';
import { markThresholds, reachedThresholds, remainingAtThreshold } from '../../../src/domain/balance/thresholds';
import type { SubBalance } from '../../../src/domain/balance/model';
import { MAX_MILLI } from '../../../src/domain/balance/units';

const subBalance = (overrides: Partial<SubBalance> = {}): SubBalance => ({
  subBalanceInstId: '15550000001-1',
  bucketRefId: '1000001',
  bucketKind: 'PRIMARY',
  subBalanceType: 'On-Net Voice',
  unitType: 'Min',
  allocated: 500_000,
  remaining: 500_000,
  rollover: 0,
  purchased: 0,
  rolloverCap: 250_000,
  endCycle: 0,
  ...overrides,
});

const levels = fc.uniqueArray(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 4 }).map((l) => l.sort((a, b) => a - b));

describe('usage thresholds', () => {
  it('marks the remaining at a level exactly, up to the largest balances (BigInt reference)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 * MAX_MILLI }), fc.integer({ min: 1, max: 100 }), (total, percent) => {
        expect(remainingAtThreshold(total, percent)).toBe(Number((BigInt(total) * BigInt(100 - percent)) / 100n));
      }),
    );
  });

  it('80 % of 500 Min used is reached at 100 Min left, not at 100.001; 100 % only at zero', () => {
    expect(reachedThresholds({ allocated: 500_000, rollover: 0, remaining: 100_001 }, [80, 100], 0)).toEqual([]);
    expect(reachedThresholds({ allocated: 500_000, rollover: 0, remaining: 100_000 }, [80, 100], 0)).toEqual([80]);
    expect(reachedThresholds({ allocated: 400_000, rollover: 100_000, remaining: 1 }, [80, 100], 80)).toEqual([]);
    expect(reachedThresholds({ allocated: 400_000, rollover: 100_000, remaining: 0 }, [80, 100], 80)).toEqual([100]);
  });

  it('within a cycle, over any history of changes, each level is reported once, exactly when remaining first reaches its mark', () => {
    const change = fc.integer({ min: -600_000, max: 300_000 });
    fc.assert(
      fc.property(levels, fc.array(change, { maxLength: 30 }), (percents, deltas) => {
        let b = subBalance();
        const reported: number[] = [];
        let lowest = b.remaining;
        for (const delta of deltas) {
          const remaining = Math.max(0, b.remaining + delta);
          lowest = Math.min(lowest, remaining);
          const marked = markThresholds([{ ...b, remaining }], new Set([b.subBalanceInstId]), { [b.bucketRefId]: percents });
          b = marked.balances[0];
          reported.push(...marked.reached.map((r) => r.percent));
        }
        // A level is reported once it was reached at some point, and never twice.
        expect(reported).toEqual(percents.filter((p) => lowest <= remainingAtThreshold(500_000, p)));
      }),
    );
  });

  it('only changed sub-balances report, and only the levels of their own bucket', () => {
    const spent = subBalance({ remaining: 0 });
    const other = subBalance({ subBalanceInstId: '15550000001-2', bucketRefId: '2000004', remaining: 0 });
    const { reached, balances } = markThresholds([spent, other], new Set([spent.subBalanceInstId]), { '1000001': [50, 100] });
    expect(reached.map((r) => [r.subBalanceInstId, r.percent])).toEqual([
      ['15550000001-1', 50],
      ['15550000001-1', 100],
    ]);
    expect(balances.map((b) => b.alertedPercent)).toEqual([100, undefined]);
  });
});
