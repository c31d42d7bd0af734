import fc from 'fast-check';
import { decodeBalanceHash, decodeBalanceRows, decodeBalances, decodeFacts, decodeOutcome, decodeReplyRows } from '../../../src/adapters/redis/balance-outcome';

/**
 * The scripts return a subscription's balances as the rows of its balances hash (scripts/lib/balance/,
 * loadBalances' layout); the worker decodes them into the same sub-balances the JSON objects gave.
 */
describe('decodeBalanceRows', () => {
  it('reads positional values and dates fields, in instance order, empty fields left out', () => {
    const rows = ['10', '2000004|A|On-Net Data|MB|1000|400|0|0|3|80||250', '2', '1000001|P|On-Net Voice|Min|500000|500000|0|250000|0||x', '10v', '1700000000000|1800000000000|1750000000000'];
    expect(decodeBalanceRows('4915', rows)).toEqual([
      {
        subBalanceInstId: '4915-2',
        bucketRefId: '1000001',
        bucketKind: 'PRIMARY',
        subBalanceType: 'On-Net Voice',
        unitType: 'Min',
        allocated: 500000,
        remaining: 500000,
        rollover: 0,
        purchased: 0,
        rolloverCap: 250000,
        endCycle: 0,
      },
      {
        subBalanceInstId: '4915-10',
        bucketRefId: '2000004',
        bucketKind: 'ADDON',
        subBalanceType: 'On-Net Data',
        unitType: 'MB',
        allocated: 1000,
        remaining: 400,
        rollover: 0,
        purchased: 250,
        rolloverCap: 0,
        endCycle: 3,
        alertedPercent: 80,
        validFor: { start: 1700000000000, end: 1800000000000 },
        purchasedUntil: 1750000000000,
      },
    ]);
  });

  it('gives the same sub-balances as the JSON objects of records written before the rows', () => {
    const json = {
      subBalanceInstId: '4915-1',
      bucketRefId: '1000001',
      bucketKind: 'PRIMARY',
      subBalanceType: 'SMS',
      unitType: 'SMS',
      allocated: '100',
      remaining: '7',
      rollover: '5',
      rolloverCap: '50',
      endCycle: '0',
    };
    expect(decodeBalances({ balanceRows: ['1', '1000001|P|SMS|SMS|100|7|5|50|0'] }, '4915')).toEqual(decodeBalances({ balances: [json] }, '4915'));
  });

  it('reads a record under its one-letter names as under the long names of records written before (s, c, b)', () => {
    const facts = ['4915', 'sub-1', 'S1', 'C1', 'WP-BASIC', '1000001', 'MONTHLY', '1', 'UTC', '1', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', 'ACTIVE'];
    const rows = ['1', '1000001|P|SMS|SMS|100|7|5|50|0'];
    const changes = ['Subtract,1,1000001,SMS,SMS,1000,8000,100000,5000,7000,100000,5000'];
    const command = { gpsi: '4915', correlationId: 'corr-1', commandId: 'cmd-1' };
    const short = decodeOutcome(JSON.stringify({ at: '2026-11-26T10:00:00.000Z', s: facts, c: changes, b: rows, fp: 'x' }), false, command);
    const long = decodeOutcome(
      JSON.stringify({ at: '2026-11-26T10:00:00.000Z', subscription: facts, changeRows: changes, balanceRows: rows, correlationId: 'corr-1', commandId: 'cmd-1' }),
      false,
    );
    expect(short).toEqual(long);
    expect(short).toMatchObject({ correlationId: 'corr-1', causeId: 'cmd-1', balances: [{ subBalanceInstId: '4915-1', remaining: 7 }], changes: [{ change: 'Subtract', quantity: 1000 }] });
  });

  // A sub-balance as the scripts hold it (every value a decimal text; optional ones may be absent), as the
  // rows of the balances hash (loadBalances' layout, trailing empty fields left out) and as the JSON object
  // of records written before the rows: both must decode to the same sub-balance.
  const amount = fc.integer({ min: 0, max: 2 ** 50 }).map(String);
  const subBalance = fc.record(
    {
      bucketRefId: fc.stringMatching(/^[0-9A-Z-]{1,10}$/),
      bucketKind: fc.constantFrom('PRIMARY', 'ADDON'),
      subBalanceType: fc.stringMatching(/^[A-Za-z][A-Za-z -]{0,15}$/),
      unitType: fc.constantFrom('Min', 'SMS', 'MMS', 'MB'),
      allocated: amount,
      remaining: amount,
      rollover: amount,
      rolloverCap: amount,
      endCycle: fc.integer({ min: 0, max: 99 }).map(String),
      alerted: fc.constantFrom('50', '80', '100'),
      firstCycle: fc.constantFrom('r', 'x', 'r500000', 'x700'),
      purchased: amount,
      validFrom: amount,
      validUntil: amount,
      purchasedUntil: amount,
    },
    { requiredKeys: ['bucketRefId', 'bucketKind', 'subBalanceType', 'unitType', 'allocated', 'remaining', 'rollover', 'rolloverCap', 'endCycle'] },
  );
  const MAIN = ['bucketRefId', 'bucketKind', 'subBalanceType', 'unitType', 'allocated', 'remaining', 'rollover', 'rolloverCap', 'endCycle', 'alerted', 'firstCycle', 'purchased'] as const;
  const DATES = ['validFrom', 'validUntil', 'purchasedUntil'] as const;
  const positional = (b: Record<string, string | undefined>, names: readonly string[], code: (name: string, v: string) => string = (_, v) => v) =>
    names
      .map((name) => (b[name] === undefined ? '' : code(name, b[name])))
      .join('|')
      .replace(/\|+$/, '');

  it('reads any sub-balances from their rows as from the JSON objects of older records, fields in any order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }), fc.array(subBalance, { minLength: 8, maxLength: 8 }), (seqs, drawn) => {
        const flat: string[] = [];
        const hash: Record<string, string> = { o: 'C1' }; // the owner mark is not a sub-balance
        const objects = seqs.map((seq, i) => ({ ...drawn[i], subBalanceInstId: `4915-${seq}` }));
        for (const [i, seq] of seqs.entries()) {
          const b = drawn[i];
          const dates = positional(b, DATES);
          const fields: [string, string][] = [[String(seq), positional(b, MAIN, (name, v) => (name === 'bucketKind' ? v[0] : v))]];
          if (dates !== '') fields.push([`${seq}v`, dates]);
          for (const [name, value] of fields.reverse()) {
            flat.push(name, value);
            hash[name] = value;
          }
        }
        const expected = decodeBalances({ balances: objects }, '4915').sort((a, b) => Number(a.subBalanceInstId.split('-')[1]) - Number(b.subBalanceInstId.split('-')[1]));
        expect(decodeBalanceRows('4915', ['o', 'C1', ...flat])).toEqual(expected);
        expect(decodeBalanceHash('4915', hash)).toEqual(expected);
      }),
    );
  });

  it('reads an empty hash (Lua encodes an empty array as {}) as no balances', () => {
    expect(decodeBalanceRows('4915', {})).toEqual([]);
  });
});

describe('decodeFacts', () => {
  const named = {
    gpsi: '4915',
    subscriptionId: 's',
    subscriberId: 'u',
    wholesaleCustomerId: 'C1',
    wholesalePlanId: 'WP',
    primaryBucketRefId: '1000001',
    billCycleFrequency: 'MONTHLY',
    billCycleStartDay: '11',
    billCycleTimeZone: 'UTC',
    cycleNo: '2',
    cycleStart: '2026-11-11T00:00:00.000Z',
    nextRenewalAt: '2026-12-11T00:00:00.000Z',
    status: 'ACTIVE',
  };

  it('names the values the scripts return in FACT_FIELDS order as the named facts of older records', () => {
    expect(decodeFacts(Object.values(named))).toEqual(decodeFacts(named));
    expect(decodeFacts(Object.values(named))).toMatchObject({ gpsi: '4915', billCycleStartDay: 11, cycleNo: 2, status: 'ACTIVE' });
  });

  it('reads false (a field the hash lacks) as absent', () => {
    const values = Object.values(named).map((v, i) => (i === 5 || i === 9 ? false : v));
    const facts = decodeFacts(values);
    expect(facts.primaryBucketRefId).toBeUndefined();
    expect(facts.cycleNo).toBeUndefined();
  });
});

describe("a balance command's compact record (commandRecord in scripts/lib/balance/)", () => {
  it("reads its rows: an empty bucketRefId is the row before's, the unit the type's, purchased and dates when present, in instance order", () => {
    const rows = '10|2000004|On-Net Data|1000|400|0|250|1700000000000|1800000000000|1750000000000;2|1000001|On-Net Voice|500000|500000|0;3||On-Net SMS|1000000|999000|0|5';
    expect(decodeReplyRows('4915', rows)).toEqual([
      { subBalanceInstId: '4915-2', bucketRefId: '1000001', subBalanceType: 'On-Net Voice', unitType: 'Min', allocated: 500000, remaining: 500000, rollover: 0, purchased: 0 },
      { subBalanceInstId: '4915-3', bucketRefId: '1000001', subBalanceType: 'On-Net SMS', unitType: 'SMS', allocated: 1000000, remaining: 999000, rollover: 0, purchased: 5 },
      {
        subBalanceInstId: '4915-10',
        bucketRefId: '2000004',
        subBalanceType: 'On-Net Data',
        unitType: 'MB',
        allocated: 1000,
        remaining: 400,
        rollover: 0,
        purchased: 250,
        validFor: { start: 1700000000000, end: 1800000000000 },
        purchasedUntil: 1750000000000,
      },
    ]);
    expect(decodeReplyRows('4915', '')).toEqual([]);
    // the amounts as replyRows writes them now: a whole unit's three zeros as k; the dates in full
    const compact = '10|2000004|On-Net Data|1k|400|0|250|1700000000000|1800000000000|1750000000000;2|1000001|On-Net Voice|500k|500k|0;3||On-Net SMS|1000k|999k|0|5';
    expect(decodeReplyRows('4915', compact)).toEqual(decodeReplyRows('4915', rows));
  });

  it('takes its time, facts and named changes from the record and the facts it does not keep from the subscription now', () => {
    const now = ['4915', 'sub-now', 'S-now', 'C-now', 'WP-now', '1000001', 'MONTHLY', '1', 'Europe/Berlin', '3', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', 'ACTIVE'];
    const record = {
      t: Date.parse('2026-11-26T10:00:00.000Z'),
      f: ['sub-1', 'S1', 'C1', 'WP-BASIC'],
      c: ['Subtract,1,,,,1000,8000,100000,5000,7000,100000,5000', 'Removed,9,2000001,On-Net Data,MB,,10,10,0'],
      r: '1|1000001|On-Net SMS|100000|7000|5000',
      fp: 'x',
    };
    const outcome = decodeOutcome(JSON.stringify(record), true, { gpsi: '4915', correlationId: 'corr-1', commandId: 'cmd-1' }, now);
    expect(outcome).toMatchObject({ at: '2026-11-26T10:00:00.000Z', correlationId: 'corr-1', causeId: 'cmd-1', replayed: true });
    expect(outcome.subscription).toEqual({
      gpsi: '4915',
      subscriptionId: 'sub-1',
      subscriberId: 'S1',
      wholesaleCustomerId: 'C1',
      wholesalePlanId: 'WP-BASIC', // the record's
      primaryBucketRefId: '1000001',
      billCycleFrequency: 'MONTHLY',
      billCycleStartDay: 1,
      billCycleTimeZone: 'Europe/Berlin', // now
      cycleNo: 3,
      cycleStart: '2026-11-01T00:00:00.000Z',
      nextRenewalAt: '2026-12-01T00:00:00.000Z',
      status: 'ACTIVE',
    });
    expect(outcome.changes.map((c) => [c.change, c.subBalanceInstId, c.bucketRefId, c.subBalanceType, c.unitType])).toEqual([
      ['Subtract', '4915-1', '1000001', 'On-Net SMS', 'SMS'], // named by its row
      ['Removed', '4915-9', '2000001', 'On-Net Data', 'MB'], // no row: named in the change
    ]);
    // A record that reached thresholds keeps the cycle its BalanceThresholdReached names.
    const reached = decodeOutcome(JSON.stringify({ ...record, f: [...record.f, '2', '2026-10-01T00:00:00.000Z'] }), false, { gpsi: '4915', correlationId: 'c', commandId: 'x' }, now);
    expect(reached.subscription).toMatchObject({ cycleNo: 2, cycleStart: '2026-10-01T00:00:00.000Z' });
  });
});
