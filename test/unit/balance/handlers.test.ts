import pino from 'pino';
import { buildCatalog } from '../../../src/domain/catalog/catalog';
import type { BalanceOutcome } from '../../../src/domain/balance/outcome';
import type { SubBalance } from '../../../src/domain/balance/model';
import { ServiceError } from '../../../src/contract/errors';
import { createBalanceHandlers } from '../../../src/handlers/balance';
import type { BalanceStore } from '../../../src/handlers/balance/ports';
import type { CommandContext, HandlerRegistration } from '../../../src/contract/handlers';
import defaultCatalog from '../../../config/catalog.json';

const GPSI = '15551234567';
const catalog = buildCatalog(defaultCatalog);

const data: SubBalance = {
  subBalanceInstId: `${GPSI}-1`,
  bucketRefId: '1000001',
  bucketKind: 'PRIMARY',
  subBalanceType: 'On-Net Data',
  unitType: 'MB',
  allocated: 5_120_000,
  remaining: 5_119_500,
  rollover: 1_000_500,
  purchased: 0,
  rolloverCap: 2_560_000,
  endCycle: 0,
};

const outcome = (overrides: Partial<BalanceOutcome> = {}): BalanceOutcome => ({
  at: '2026-03-01T10:00:00.000Z',
  correlationId: 'corr-1',
  causeId: 'cmd-1',
  subscription: {
    gpsi: GPSI,
    subscriptionId: 'sub-1',
    subscriberId: 'S1',
    wholesaleCustomerId: 'C1',
    wholesalePlanId: 'WP-BASIC',
    primaryBucketRefId: '1000001',
    billCycleFrequency: 'MONTHLY',
    billCycleStartDay: 1,
    billCycleTimeZone: 'UTC',
    status: 'ACTIVE',
    cycleNo: 1,
  },
  changes: [],
  balances: [data],
  replayed: false,
  ...overrides,
});

/** An in-memory BalanceStore that records what the handlers asked for. */
function fakeStore(result: BalanceOutcome | ServiceError = outcome()) {
  const calls: { method: string; args: unknown[] }[] = [];
  const answer =
    (method: string) =>
    async (...args: unknown[]) => {
      calls.push({ method, args });
      if (result instanceof ServiceError) throw result;
      return result;
    };
  const store: BalanceStore = {
    addBuckets: answer('addBuckets'),
    swapPrimary: answer('swapPrimary'),
    cancelBuckets: answer('cancelBuckets'),
    updateBalances: answer('updateBalances'),
    queryBalances: answer('queryBalances') as unknown as BalanceStore['queryBalances'],
    history: async (...args) => {
      calls.push({ method: 'history', args });
      return [
        { at: 'now', correlationId: 'c', operation: 'UpdateBalances', change: 'Add', subBalanceInstId: 'i', bucketRefId: 'b', subBalanceType: 'On-Net SMS', unitType: 'SMS', quantity: 2500 },
      ];
    },
  };
  return { store, calls };
}

const context = (overrides: Partial<CommandContext> = {}): CommandContext => ({
  correlationId: 'corr-1',
  commandId: 'cmd-1',
  operation: 'AddBuckets',
  wholesaleCustomerId: 'C1',
  canSee: (owner) => owner === 'C1' || owner === 'C1-brand',
  visibleCustomerIds: ['C1', 'C1-brand'],
  now: new Date('2026-03-01T10:00:00Z'),
  fingerprint: 'fp-1',
  log: pino({ level: 'silent' }),
  ...overrides,
});

const handler = (handlers: HandlerRegistration[], name: string) => handlers.find((h) => h.commandRecord === `wholesale.balance.v1.${name}`)!;

describe('balance handlers', () => {
  it('registers the six commands with their reply records and validators', () => {
    const handlers = createBalanceHandlers({ balances: fakeStore().store, catalog });
    expect(handlers.map((h) => [h.domain, h.commandRecord, h.replyRecord])).toEqual(
      ['AddBuckets', 'SwapPrimaryBucket', 'CancelBuckets', 'QueryBalances', 'UpdateBalances', 'QueryBalanceHistory'].map((n) => [
        'balance',
        `wholesale.balance.v1.${n}`,
        `wholesale.balance.v1.${n}Reply`,
      ]),
    );
    expect(handlers.every((h) => typeof h.validate === 'function')).toBe(true);
  });

  it('answers BAD_REQUEST listing every problem without touching the store', async () => {
    const { store, calls } = fakeStore();
    const add = handler(createBalanceHandlers({ balances: store, catalog }), 'AddBuckets');
    await expect(add.handle({ gpsi: GPSI, bucketRefId: ['1000001', 'zzz'] }, context({ wholesaleCustomerId: undefined }))).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      problems: [
        { path: 'bucketRefId[0]', reason: 'names a PRIMARY bucket (1000001), not an ADDON one' },
        { path: 'bucketRefId[1]', reason: 'names no bucket in the catalog (zzz)' },
        { path: 'headers.wholesaleCustomerId', reason: 'is required for balance operations' },
      ],
    });
    expect(calls).toEqual([]);
  });

  it("AddBuckets and SwapPrimaryBucket: the form is validated, the catalog's say on their ids is their situation", () => {
    const handlers = createBalanceHandlers({ balances: fakeStore().store, catalog });
    const [add, swap] = [handler(handlers, 'AddBuckets'), handler(handlers, 'SwapPrimaryBucket')];
    const now = new Date();
    const wrongAdd = { gpsi: GPSI, bucketRefId: ['1000001', 'zzz', ''] };
    expect([add.validate!(wrongAdd, now), add.situation!(wrongAdd, now)]).toEqual([
      [{ path: 'bucketRefId[2]', reason: 'must be at least 1 characters' }],
      [
        { path: 'bucketRefId[0]', reason: 'names a PRIMARY bucket (1000001), not an ADDON one' },
        { path: 'bucketRefId[1]', reason: 'names no bucket in the catalog (zzz)' },
      ],
    ]);
    expect([swap.validate!({ gpsi: GPSI, bucketRefId: '2000004' }, now), swap.situation!({ gpsi: GPSI, bucketRefId: '2000004' }, now)]).toEqual([
      [],
      [{ path: 'bucketRefId', reason: 'names an ADDON bucket (2000004), not a PRIMARY one' }],
    ]);
    expect(swap.situation!({ gpsi: GPSI, bucketRefId: 7 }, now)).toEqual([]); // not an id: the form's problem only
  });

  it('a change refused new (its buckets left the catalog, its age) asks its store for its recorded outcome alone: no buckets, the refusal given', async () => {
    const { store, calls } = fakeStore(outcome({ replayed: true }));
    const handlers = createBalanceHandlers({ balances: store, catalog });
    const refuseNew = { code: 'BAD_REQUEST' as const, message: 'The command is invalid: 1 problem(s)', problems: [{ path: 'bucketRefId[0]', reason: 'names no bucket in the catalog (gone)' }] };
    const added = await handler(handlers, 'AddBuckets').handle({ gpsi: GPSI, bucketRefId: ['gone'] }, context({ refuseNew }));
    const swapped = await handler(handlers, 'SwapPrimaryBucket').handle({ gpsi: GPSI, bucketRefId: 'gone' }, context({ refuseNew, operation: 'SwapPrimaryBucket' }));
    expect([added.replayed, swapped.replayed]).toEqual([true, true]);
    expect(calls.map((c) => [c.method, (c.args[0] as { refuseNew?: unknown }).refuseNew, c.args[1]])).toEqual([
      ['addBuckets', refuseNew, { bucketRefIds: [], seeds: [] }],
      ['swapPrimary', refuseNew, { bucketRefId: 'gone', wholesalePlanId: '', seeds: [] }],
    ]);
  });

  it('AddBuckets: passes the catalog seeds in milli-units and replies with balances in units', async () => {
    const { store, calls } = fakeStore();
    const add = handler(createBalanceHandlers({ balances: store, catalog }), 'AddBuckets');
    const result = await add.handle({ gpsi: GPSI, bucketRefId: ['2000004'] }, context());
    expect(calls[0].args[0]).toMatchObject({
      gpsi: GPSI,
      wholesaleCustomerId: 'C1',
      visibleCustomerIds: ['C1', 'C1-brand'],
      commandId: 'cmd-1',
      operation: 'AddBuckets',
      at: '2026-03-01T10:00:00.000Z',
    });
    expect(calls[0].args[1]).toEqual({
      bucketRefIds: ['2000004'],
      seeds: [
        { bucketRefId: '2000004', bucketKind: 'ADDON', subBalanceType: 'On-Net SMS', unitType: 'SMS', allocated: 500_000, rolloverCap: 0 },
        { bucketRefId: '2000004', bucketKind: 'ADDON', subBalanceType: 'On-Net MMS', unitType: 'MMS', allocated: 50_000, rolloverCap: 0 },
      ],
    });
    expect(result.reply).toEqual({
      status: 'Success',
      balances: [
        {
          balanceType: 'Main',
          subBalances: [
            {
              subBalanceInstId: `${GPSI}-1`,
              subBalanceType: 'On-Net Data',
              remainingBalance: 5119.5,
              allocatedBalance: 5120,
              rollOverBalance: 1000.5,
              totalBalance: 6120.5,
              purchasedBalance: 0,
              unitType: 'MB',
              bucketRefId: '1000001',
              validFor: null,
              purchasedValidUntil: null,
              reservedBalance: 0,
              availableBalance: 5119.5,
            },
          ],
        },
      ],
    });
  });

  it('emits the billing event keyed by gpsi with an id derived from the command id (a replay gets the same id)', async () => {
    const handlers = createBalanceHandlers({ balances: fakeStore().store, catalog });
    const update = handler(handlers, 'UpdateBalances');
    const command = { gpsi: GPSI, balances: [{ subBalanceInstId: `${GPSI}-1`, subBalanceType: 'On-Net Data', action: 'Add', quantity: 1, unitType: 'MB' }] };
    const first = await update.handle(command, context({ operation: 'UpdateBalances' }));
    const again = await update.handle(command, context({ operation: 'UpdateBalances' }));
    const other = await update.handle(command, context({ operation: 'UpdateBalances', commandId: 'cmd-2' }));
    const [event] = first.messages!;
    expect(event).toMatchObject({ topic: 'balanceEvents', recordName: 'wholesale.balance.v1.BalancesUpdated', key: GPSI });
    expect(event.cloudEvent!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(again.messages![0]).toEqual(event);
    expect(other.messages![0].cloudEvent!.id).not.toBe(event.cloudEvent!.id);
    expect(event.value).toMatchObject({ gpsi: GPSI, wholesaleCustomerId: 'C1', correlationId: 'corr-1', causeId: 'cmd-1', changes: [] });
  });

  it('UpdateBalances: hands the actions and their own problems to the store, which judges them all together', async () => {
    const { store, calls } = fakeStore(new ServiceError('BAD_REQUEST', 'The command is invalid', [{ path: 'balances[0].quantity', reason: 'must be a finite number' }]));
    const update = handler(createBalanceHandlers({ balances: store, catalog }), 'UpdateBalances');
    const command = { gpsi: GPSI, balances: [{ subBalanceInstId: 'x', subBalanceType: 'On-Net Data', action: 'Add', quantity: Number.NaN, unitType: 'MB' }] };
    await expect(update.handle(command, context())).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(calls[0].args[1]).toEqual({
      actions: [{ subBalanceInstId: 'x', subBalanceType: 'On-Net Data', unitType: 'MB', action: 'Add', quantity: undefined }],
      problems: [{ path: 'balances[0].quantity', reason: 'must be a finite number' }],
    });
  });

  it('UpdateBalances: gives the store the catalog thresholds and publishes one BalanceThresholdReached per level after BalancesUpdated', async () => {
    const amounts = { remaining: 0, allocated: 5_120_000, rollover: 0, purchased: 0 };
    const reached = [80, 100].map((percent) => ({ subBalanceInstId: `${GPSI}-4`, bucketRefId: '1000001', subBalanceType: 'On-Net Data', unitType: 'MB', percent, amounts }));
    const { store, calls } = fakeStore(outcome({ thresholds: reached }));
    const update = handler(createBalanceHandlers({ balances: store, catalog }), 'UpdateBalances');
    const command = { gpsi: GPSI, balances: [{ subBalanceInstId: `${GPSI}-4`, subBalanceType: 'On-Net Data', action: 'Subtract', quantity: 5120, unitType: 'MB' }] };
    const { messages } = await update.handle(command, context({ operation: 'UpdateBalances' }));
    expect(calls[0].args[2]).toMatchObject({ '1000001': [80, 100], '2000004': [80, 100] });
    expect(calls[0].args[3]).toEqual({ 'On-Net Data': { days: 90 } }); // how long a top-up lasts, by type (the store dates it)
    expect(messages!.map((m) => [m.recordName, m.value.thresholdPercent])).toEqual([
      ['wholesale.balance.v1.BalancesUpdated', undefined],
      ['wholesale.balance.v1.BalanceThresholdReached', 80],
      ['wholesale.balance.v1.BalanceThresholdReached', 100],
    ]);
    expect(messages![2].value).toMatchObject({ subBalanceInstId: `${GPSI}-4`, cycleNo: 1, balance: { remainingBalance: 0, allocatedBalance: 5120, totalBalance: 5120 } });
    expect(new Set(messages!.map((m) => m.cloudEvent!.id)).size).toBe(3);
  });

  it('AddBuckets of a dated add-on passes its validity; a dated sub-balance replies its validFor (TMF654) and its credit end', async () => {
    const pass: SubBalance = {
      ...data,
      subBalanceInstId: `${GPSI}-5`,
      bucketRefId: '2000001',
      bucketKind: 'ADDON',
      validFor: { start: Date.UTC(2026, 2, 31, 12), end: Date.UTC(2026, 3, 30, 12) },
      purchasedUntil: Date.UTC(2026, 5, 29),
    };
    const { store, calls } = fakeStore(outcome({ balances: [pass] }));
    const add = handler(createBalanceHandlers({ balances: store, catalog }), 'AddBuckets');
    const result = await add.handle({ gpsi: GPSI, bucketRefId: ['2000001', '2000003'] }, context());
    expect((calls[0].args[1] as { seeds: { validity?: object }[] }).seeds.map((seed) => seed.validity)).toEqual([{ cycles: 1 }, { days: 7 }]);
    expect(result.reply).toMatchObject({ balances: [{ subBalances: [{ validFor: expect.anything() }] }] });
    expect((result.reply as { balances: { subBalances: object[] }[] }).balances[0].subBalances[0]).toMatchObject({
      validFor: { startDateTime: '2026-03-31T12:00:00.000Z', endDateTime: '2026-04-30T12:00:00.000Z' },
      purchasedValidUntil: '2026-06-29T00:00:00.000Z',
    });
  });

  it('passes a refusal of the store (NOT_FOUND, CONFLICT) through as the reply error', async () => {
    const refusal = new ServiceError('CONFLICT', 'The subscription is PENDING, not ACTIVE');
    const query = handler(createBalanceHandlers({ balances: fakeStore(refusal).store, catalog }), 'QueryBalances');
    await expect(query.handle({ gpsi: GPSI }, context())).rejects.toBe(refusal);
  });

  it('QueryBalanceHistory: entries with quantities in units, the default limit when none is given', async () => {
    const { store, calls } = fakeStore();
    const history = handler(createBalanceHandlers({ balances: store, catalog }), 'QueryBalanceHistory');
    const result = await history.handle({ gpsi: GPSI, limit: null }, context());
    expect(calls[0].args).toEqual([GPSI, ['C1', 'C1-brand'], 50]);
    expect(result.reply).toEqual({
      status: 'Success',
      gpsi: GPSI,
      entries: [
        {
          at: 'now',
          correlationId: 'c',
          operation: 'UpdateBalances',
          change: 'Add',
          subBalanceInstId: 'i',
          bucketRefId: 'b',
          subBalanceType: 'On-Net SMS',
          unitType: 'SMS',
          quantity: 2.5,
          before: null,
          after: null,
          validFor: null,
          purchasedValidUntil: null,
        },
      ],
    });
  });
});
