import { expireDue, nextExpiryOf, renewBalances } from '../../../src/domain/balance/renewal';
import type { SubBalance } from '../../../src/domain/balance/model';

const subBalance = (n: number, overrides: Partial<SubBalance> = {}): SubBalance => ({
  subBalanceInstId: `15550000001-${n}`,
  bucketRefId: '1000001',
  bucketKind: 'PRIMARY',
  subBalanceType: 'On-Net Data',
  unitType: 'MB',
  allocated: 5_120_000,
  remaining: 1_000_000,
  rollover: 0,
  purchased: 0,
  rolloverCap: 2_560_000,
  endCycle: 0,
  ...overrides,
});
const pass = subBalance(2, { bucketRefId: '2000001', bucketKind: 'ADDON', allocated: 1_024_000, remaining: 24_000, rolloverCap: 0, validFor: { start: 1000, end: 5000 } });

describe("renewal and expiry of a subscription's sub-balances", () => {
  it('renewal leaves a dated bucket alone, expires one from before validity dates whose cycles ended, renews the rest', () => {
    const legacy = subBalance(3, { bucketRefId: '2000003', endCycle: 2 });
    const primary = subBalance(1, { remaining: 4_000_000, purchased: 3_000_000, purchasedUntil: 9000, alertedPercent: 80 });
    const { balances, changes } = renewBalances([primary, pass, legacy], 2, new Set(['On-Net Data']));
    expect(changes.map((c) => [c.change, c.subBalanceInstId])).toEqual([
      ['Renewed', primary.subBalanceInstId],
      ['Expired', legacy.subBalanceInstId],
    ]);
    expect(balances).toEqual(
      [{ ...primary, allocated: 5_120_000, rollover: 1_000_000, purchased: 3_000_000, remaining: 9_120_000, alertedPercent: undefined }, pass].map(({ alertedPercent, ...b }) =>
        alertedPercent === undefined ? b : { ...b, alertedPercent },
      ),
    );
    expect(changes[0]).toMatchObject({ purchasedUntil: 9000 });
  });

  it('purchased credit that lapses at renewal takes its end date with it', () => {
    const primary = subBalance(1, { remaining: 4_000_000, purchased: 3_000_000, purchasedUntil: 9000 });
    const [renewed] = renewBalances([primary], 2, new Set()).balances;
    expect(renewed).toMatchObject({ purchased: 0, rollover: 2_560_000, remaining: 7_680_000 });
    expect(renewed).not.toHaveProperty('purchasedUntil');
  });

  it('expiry removes dated buckets whose end came and takes purchased credit whose end came off the sub-balance', () => {
    const primary = subBalance(1, { remaining: 4_000_000, purchased: 3_000_000, purchasedUntil: 5000 });
    expect(nextExpiryOf([primary, pass])).toBe(5000);
    expect(expireDue([primary, pass], 4999)).toEqual({ balances: [primary, pass], changes: [] });
    const { balances, changes } = expireDue([primary, pass], 5000);
    expect(changes).toEqual([
      {
        change: 'CreditExpired',
        subBalanceInstId: primary.subBalanceInstId,
        bucketRefId: '1000001',
        subBalanceType: 'On-Net Data',
        unitType: 'MB',
        quantity: 3_000_000,
        before: { remaining: 4_000_000, allocated: 5_120_000, rollover: 0, purchased: 3_000_000 },
        after: { remaining: 1_000_000, allocated: 5_120_000, rollover: 0, purchased: 0 },
      },
      {
        change: 'Expired',
        subBalanceInstId: pass.subBalanceInstId,
        bucketRefId: '2000001',
        subBalanceType: 'On-Net Data',
        unitType: 'MB',
        before: { remaining: 24_000, allocated: 1_024_000, rollover: 0, purchased: 0 },
        validFor: { start: 1000, end: 5000 },
      },
    ]);
    expect(balances).toEqual([{ ...subBalance(1), remaining: 1_000_000 }]);
    expect(nextExpiryOf(balances)).toBeUndefined();
  });
});
