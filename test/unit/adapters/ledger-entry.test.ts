import { decodeLedgerEntry, ledgerHistory, milliOf } from '../../../src/adapters/redis/ledger-entry';

/** The ledger as appendLedger (scripts/lib/balance/) stores it: one entry per operation. */
const gpsi = '14155550100';
const at = '2025-03-01T10:00:00.000Z';

describe('ledger entries as stored in Redis', () => {
  it('one activation entry: every Created change without before amounts, in the order made', () => {
    const stored = `${at}|SubscriptionActivation|Created,1,1000001,On-Net Voice,Min,,,,,,500000;Created,5,2000002,On-Net Data,MB,,,,,5120000,5120000,0|activate-1`;
    const common = { at, operation: 'SubscriptionActivation', correlationId: 'activate-1' };
    expect(decodeLedgerEntry(stored, gpsi)).toEqual([
      {
        ...common,
        change: 'Created',
        subBalanceInstId: `${gpsi}-1`,
        bucketRefId: '1000001',
        subBalanceType: 'On-Net Voice',
        unitType: 'Min',
        after: { remaining: 500_000, allocated: 500_000, rollover: 0, purchased: 0 },
      },
      {
        ...common,
        change: 'Created',
        subBalanceInstId: `${gpsi}-5`,
        bucketRefId: '2000002',
        subBalanceType: 'On-Net Data',
        unitType: 'MB',
        after: { remaining: 5_120_000, allocated: 5_120_000, rollover: 0, purchased: 0 },
      },
    ]);
    expect(decodeLedgerEntry(stored, gpsi)[0]).not.toHaveProperty('before');
    expect(decodeLedgerEntry(stored, gpsi)[0]).not.toHaveProperty('quantity');
  });

  it('an Add or Subtract carries its quantity and both amounts; a removal (trailing fields left out) has no after', () => {
    const [subtract, removed] = decodeLedgerEntry(
      `${at}|UpdateBalances|Subtract,4,1000001,On-Net Data,MB,12500,5120000,5120000,0,5107500,5120000,0;Expired,7,2000001,On-Net Data,MB,,1024000,1024000,0|c`,
      gpsi,
    );
    expect(subtract).toMatchObject({
      change: 'Subtract',
      quantity: 12_500,
      before: { remaining: 5_120_000, allocated: 5_120_000, rollover: 0 },
      after: { remaining: 5_107_500, allocated: 5_120_000, rollover: 0 },
    });
    expect(removed).toEqual({
      change: 'Expired',
      subBalanceInstId: `${gpsi}-7`,
      bucketRefId: '2000001',
      subBalanceType: 'On-Net Data',
      unitType: 'MB',
      before: { remaining: 1_024_000, allocated: 1_024_000, rollover: 0, purchased: 0 },
      at,
      operation: 'UpdateBalances',
      correlationId: 'c',
    });
  });

  it('purchased credit before and after comes last; empty (or absent, as written before purchased credit) is 0', () => {
    const [add, renewed] = decodeLedgerEntry(
      `${at}|UpdateBalances|Add,4,1000001,On-Net Data,MB,1000,5120000,5120000,0,5121000,5120000,0,,1000;Renewed,4,1000001,On-Net Data,MB,,1600,5120000,0,5121600,5120000,100,1500,1500|c`,
      gpsi,
    );
    expect(add).toMatchObject({ before: { remaining: 5_120_000, purchased: 0 }, after: { remaining: 5_121_000, purchased: 1000 } });
    expect(renewed).toMatchObject({ before: { remaining: 1600, purchased: 1500 }, after: { remaining: 5_121_600, rollover: 100, purchased: 1500 } });
  });

  it("numbers written without a whole unit's zeros (k for 000) read as those written in full", () => {
    const full = `${at}|UpdateBalances|Subtract,4,1000001,On-Net Data,MB,12500,5120000,5120000,0,5107500,5120000,0;Add,1,1000001,On-Net Voice,Min,1000,500000,500000,0,501000,500000,0,,1000,1700000000000,1800000000000|c`;
    const compact = `${at}|UpdateBalances|Subtract,4,1000001,On-Net Data,MB,12500,5120k,5120k,0,5107500,5120k,0;Add,1,1000001,On-Net Voice,Min,1k,500k,500k,0,501k,500k,0,,1k,1700000000k,1800000000k|c`;
    expect(decodeLedgerEntry(compact, gpsi)).toEqual(decodeLedgerEntry(full, gpsi));
    expect(decodeLedgerEntry(`${at}|SubscriptionActivation|Created,1,1000001,On-Net Voice,Min,,,,,,500k|a`, gpsi)[0]).toMatchObject({ after: { remaining: 500_000, allocated: 500_000 } });
  });

  it('milliOf: k stands for three zeros, at the end only', () => {
    expect([milliOf('5k'), milliOf('10000k'), milliOf('-3k'), milliOf('1500'), milliOf('0'), milliOf('')]).toEqual([5000, 10_000_000, -3000, 1500, 0, 0]);
    expect(milliOf(undefined)).toBeNaN();
    expect(milliOf('k5')).toBeNaN();
  });

  it('the correlationId is everything after the third |, whatever it holds', () => {
    const correlationId = 'weird|id,with;separators| and |spaces,;';
    const [entry] = decodeLedgerEntry(`${at}|AddBuckets|Created,9,2000004,On-Net SMS,SMS,,,,,500000,500000,0|${correlationId}`, gpsi);
    expect(entry).toMatchObject({ correlationId, operation: 'AddBuckets', change: 'Created', subBalanceType: 'On-Net SMS', after: { remaining: 500_000 } });
    expect(decodeLedgerEntry(`${at}|AddBuckets|Created,9,2000004,On-Net SMS,SMS,,,,,1,1,0|`, gpsi)[0].correlationId).toBe('');
  });

  it('refuses an entry that is not at|operation|changes|correlationId', () => {
    expect(() => decodeLedgerEntry('{"change":"Add"}', gpsi)).toThrow(/not at\|operation\|changes\|correlationId/);
    expect(() => decodeLedgerEntry(`${at}|UpdateBalances`, gpsi)).toThrow();
    expect(decodeLedgerEntry(`${at}|UpdateBalances||c`, gpsi)).toEqual([]);
  });

  it("history: entries newest first, each operation's changes last to first, cut to the limit of changes", () => {
    const stored = [
      `${at}|UpdateBalances|Add,4,1000001,On-Net Data,MB,1000,1,1,0,1001,1,0;Add,1,1000001,On-Net Voice,Min,2000,1,1,0,2001,1,0|newest`,
      `${at}|SubscriptionActivation|Created,1,1000001,On-Net Voice,Min,,,,,1,1,0;Created,4,1000001,On-Net Data,MB,,,,,1,1,0|oldest`,
    ];
    const ids = (limit: number) => ledgerHistory(stored, gpsi, limit).map((e) => [e.correlationId, e.change, e.subBalanceInstId]);
    expect(ids(10)).toEqual([
      ['newest', 'Add', `${gpsi}-1`],
      ['newest', 'Add', `${gpsi}-4`],
      ['oldest', 'Created', `${gpsi}-4`],
      ['oldest', 'Created', `${gpsi}-1`],
    ]);
    expect(ids(3)).toEqual(ids(10).slice(0, 3));
    expect(ledgerHistory([], gpsi, 5)).toEqual([]);
  });
});
