import { randomUUID } from 'node:crypto';
import type { BalanceComponents } from '../../src/app/balance';
import type { SubBalance } from '../../src/contract/types.generated';
import { deterministicId } from '../../src/domain/balance/billing-events';
import { validityEnd, type Validity } from '../../src/domain/balance/validity';
import { commandIdOf } from '../../src/pipeline/command-processor';
import { HEADER } from '../../src/contract/headers';
import { balanceComponentsOf, BalanceClient, balanceRecord } from '../support/balance-client';
import { TestRequester, type Reply } from '../support/harness';
import { redisTopologies } from '../support/redis-topologies';
import { createActiveSubscription, createPendingSubscription, randomCustomer, randomGpsi, type TestSubscription } from '../support/subscriptions';
import { useService } from '../support/service-fixture';

const ERROR_REPLY = 'wholesale.common.v1.ErrorReply';
type SubBalanceWire = SubBalance; // as the reply schema defines it

/**
 * The five balance operations of the spec and the history query, end to end over Kafka, the registry and
 * Redis — a single node, then a three-master Redis Cluster (no CROSSSLOT: one hash tag per subscription).
 */
describe.each(redisTopologies())('balance operations over the real stack (Redis $name)', (topology) => {
  let client: BalanceClient;
  let balance: BalanceComponents;

  const fx = useService({ env: () => topology.env() });

  beforeAll(async () => {
    client = fx.track(await BalanceClient.start(fx.config));
    balance = balanceComponentsOf(fx.service, fx.config);
  });

  afterAll(async () => {
    await topology.stop();
  });

  const subBalances = (reply: Reply): SubBalanceWire[] => reply.value.balances.flatMap((b: { subBalances: SubBalanceWire[] }) => b.subBalances);
  const query = async (sub: TestSubscription) => client.send('QueryBalances', { gpsi: sub.gpsi }, sub.wholesaleCustomerId);
  const action = (sub: TestSubscription, n: number, a: string, quantity: number, type = 'On-Net Data', unit = 'MB') => ({
    subBalanceInstId: `${sub.gpsi}-${n}`,
    balanceType: 'Main',
    subBalanceType: type,
    action: a,
    quantity,
    unitType: unit,
  });
  const eventFor = (type: string, correlationId: string) => client.event((e) => e.recordName === balanceRecord(type) && e.value.correlationId === correlationId);
  const expectError = (reply: Reply, code: string) => {
    expect(reply.recordName).toBe(ERROR_REPLY);
    expect(reply.headers[HEADER.status]).toBe(code);
    expect(reply.value.error.code).toBe(code);
    return reply.value.error as { message: string; problems: { path: string; reason: string }[] };
  };

  describe('success replies and billing events', () => {
    it('QueryBalances answers the balances of 2.10: Main with every sub-balance, total = allocated + rollover', async () => {
      const sub = await createActiveSubscription(balance.subscriptions, { bucketRefIds: ['2000004'] });
      const reply = await query(sub);
      expect(reply.recordName).toBe(balanceRecord('QueryBalancesReply'));
      expect(reply.headers[HEADER.status]).toBe('Success');
      expect(reply.value.status).toBe('Success');
      expect(reply.value.balances).toHaveLength(1);
      expect(reply.value.balances[0].balanceType).toBe('Main');
      expect(subBalances(reply)).toEqual([
        {
          subBalanceInstId: `${sub.gpsi}-1`,
          subBalanceType: 'On-Net Voice',
          remainingBalance: 500,
          allocatedBalance: 500,
          rollOverBalance: 0,
          totalBalance: 500,
          unitType: 'Min',
          bucketRefId: '1000001',
          purchasedBalance: 0,
          validFor: null,
          purchasedValidUntil: null,
          reservedBalance: 0,
          availableBalance: 500,
        },
        {
          subBalanceInstId: `${sub.gpsi}-2`,
          subBalanceType: 'On-Net SMS',
          remainingBalance: 1000,
          allocatedBalance: 1000,
          rollOverBalance: 0,
          totalBalance: 1000,
          unitType: 'SMS',
          bucketRefId: '1000001',
          purchasedBalance: 0,
          validFor: null,
          purchasedValidUntil: null,
          reservedBalance: 0,
          availableBalance: 1000,
        },
        {
          subBalanceInstId: `${sub.gpsi}-3`,
          subBalanceType: 'On-Net MMS',
          remainingBalance: 100,
          allocatedBalance: 100,
          rollOverBalance: 0,
          totalBalance: 100,
          unitType: 'MMS',
          bucketRefId: '1000001',
          purchasedBalance: 0,
          validFor: null,
          purchasedValidUntil: null,
          reservedBalance: 0,
          availableBalance: 100,
        },
        {
          subBalanceInstId: `${sub.gpsi}-4`,
          subBalanceType: 'On-Net Data',
          remainingBalance: 5120,
          allocatedBalance: 5120,
          rollOverBalance: 0,
          totalBalance: 5120,
          unitType: 'MB',
          bucketRefId: '1000001',
          purchasedBalance: 0,
          validFor: null,
          purchasedValidUntil: null,
          reservedBalance: 0,
          availableBalance: 5120,
        },
        {
          subBalanceInstId: `${sub.gpsi}-5`,
          subBalanceType: 'On-Net SMS',
          remainingBalance: 500,
          allocatedBalance: 500,
          rollOverBalance: 0,
          totalBalance: 500,
          unitType: 'SMS',
          bucketRefId: '2000004',
          purchasedBalance: 0,
          validFor: null,
          purchasedValidUntil: null,
          reservedBalance: 0,
          availableBalance: 500,
        },
        {
          subBalanceInstId: `${sub.gpsi}-6`,
          subBalanceType: 'On-Net MMS',
          remainingBalance: 50,
          allocatedBalance: 50,
          rollOverBalance: 0,
          totalBalance: 50,
          unitType: 'MMS',
          bucketRefId: '2000004',
          purchasedBalance: 0,
          validFor: null,
          purchasedValidUntil: null,
          reservedBalance: 0,
          availableBalance: 50,
        },
      ]);
    });

    it('AddBuckets replies Success with the new sub-balances and publishes BucketsAdded (key gpsi, CloudEvents headers, id from the command)', async () => {
      const sub = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-DATA' });
      const correlationId = randomUUID();
      const reply = await client.send('AddBuckets', { gpsi: sub.gpsi, bucketRefId: ['2000001', '2000003'] }, sub.wholesaleCustomerId, correlationId);
      expect(reply.recordName).toBe(balanceRecord('AddBucketsReply'));
      expect(reply.value.status).toBe('Success');
      expect(subBalances(reply).map((b) => [b.subBalanceInstId, b.bucketRefId, b.remainingBalance])).toEqual([
        [`${sub.gpsi}-1`, '1000003', 10240],
        [`${sub.gpsi}-2`, '2000001', 1024],
        [`${sub.gpsi}-3`, '2000003', 100],
      ]);
      const event = await eventFor('BucketsAdded', correlationId);
      expect(event.key).toBe(sub.gpsi);
      expect(event.headers).toMatchObject({
        ce_specversion: '1.0',
        ce_type: balanceRecord('BucketsAdded'),
        ce_subject: sub.gpsi,
        ce_id: deterministicId(`${commandIdOf(sub.wholesaleCustomerId, 'AddBuckets', correlationId)}/BucketsAdded`),
        'content-type': 'application/avro',
      });
      expect(event.value).toMatchObject({ gpsi: sub.gpsi, wholesaleCustomerId: sub.wholesaleCustomerId, subscriberId: sub.subscriberId, bucketRefIds: ['2000001', '2000003'] });
      // Dated add-ons: each valid from the moment it was added (billing time), for one cycle and for 7 days.
      const added = Date.parse(event.value.occurredAt);
      const validFor = (validity: Validity) => ({ startDateTime: event.value.occurredAt, endDateTime: new Date(validityEnd(added, validity)).toISOString() });
      expect(event.value.changes).toEqual([
        {
          change: 'Created',
          subBalanceInstId: `${sub.gpsi}-2`,
          bucketRefId: '2000001',
          subBalanceType: 'On-Net Data',
          unitType: 'MB',
          quantity: null,
          before: null,
          after: { remainingBalance: 1024, allocatedBalance: 1024, rollOverBalance: 0, totalBalance: 1024, purchasedBalance: 0 },
          validFor: validFor({ cycles: 1 }),
          purchasedValidUntil: null,
        },
        {
          change: 'Created',
          subBalanceInstId: `${sub.gpsi}-3`,
          bucketRefId: '2000003',
          subBalanceType: 'On-Net Voice',
          unitType: 'Min',
          quantity: null,
          before: null,
          after: { remainingBalance: 100, allocatedBalance: 100, rollOverBalance: 0, totalBalance: 100, purchasedBalance: 0 },
          validFor: validFor({ days: 7 }),
          purchasedValidUntil: null,
        },
      ]);
      expect(subBalances(await query(sub)).map((b) => b.validFor)).toEqual([null, validFor({ cycles: 1 }), validFor({ days: 7 })]);
    });

    it('SwapPrimaryBucket (a single bucketRefId) replaces the primary and publishes PrimaryBucketSwapped', async () => {
      const sub = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-DATA' });
      const correlationId = randomUUID();
      const reply = await client.send('SwapPrimaryBucket', { gpsi: sub.gpsi, bucketRefId: '1000002' }, sub.wholesaleCustomerId, correlationId);
      expect(reply.recordName).toBe(balanceRecord('SwapPrimaryBucketReply'));
      expect(reply.value.status).toBe('Success');
      expect(subBalances(reply).map((b) => [b.bucketRefId, b.subBalanceType, b.allocatedBalance])).toEqual([
        ['1000002', 'On-Net Voice', 5000],
        ['1000002', 'On-Net SMS', 10000],
        ['1000002', 'On-Net MMS', 1000],
        ['1000002', 'On-Net Data', 51200],
      ]);
      const event = await eventFor('PrimaryBucketSwapped', correlationId);
      expect(event.value).toMatchObject({ fromBucketRefId: '1000003', toBucketRefId: '1000002', fromWholesalePlanId: 'WP-DATA', wholesalePlanId: 'WP-UNL' });
      expect(event.value.changes.map((c: { change: string; bucketRefId: string }) => [c.change, c.bucketRefId])).toEqual([
        ['Removed', '1000003'],
        ['Created', '1000002'],
        ['Created', '1000002'],
        ['Created', '1000002'],
        ['Created', '1000002'],
      ]);
      // The plan follows the swap: later billing events bill the plan of the new primary bucket.
      const updateId = randomUUID();
      const update = await client.send('UpdateBalances', { gpsi: sub.gpsi, balances: [action(sub, 5, 'Subtract', 1)] }, sub.wholesaleCustomerId, updateId);
      expect(update.value.status).toBe('Success');
      expect((await eventFor('BalancesUpdated', updateId)).value.wholesalePlanId).toBe('WP-UNL');
    });

    it('UpdateBalances that uses up 80 % and then all of a sub-balance publishes BalanceThresholdReached once per level in the cycle', async () => {
      const sub = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-DATA' }); // 10240 MB, thresholds 80 and 100
      const update = async (a: string, quantity: number) => {
        const correlationId = randomUUID();
        const reply = await client.send('UpdateBalances', { gpsi: sub.gpsi, balances: [action(sub, 1, a, quantity)] }, sub.wholesaleCustomerId, correlationId);
        expect(reply.value.status).toBe('Success');
        return correlationId;
      };
      const thresholdsOf = (correlationId: string) => client.events.filter((e) => e.recordName === balanceRecord('BalanceThresholdReached') && e.value.correlationId === correlationId);
      const eightyPercent = await update('Subtract', 8192); // 2048 MB left: exactly 20 %
      const reached = await eventFor('BalanceThresholdReached', eightyPercent);
      expect(reached.key).toBe(sub.gpsi);
      expect(reached.headers).toMatchObject({
        ce_type: balanceRecord('BalanceThresholdReached'),
        ce_id: deterministicId(`${commandIdOf(sub.wholesaleCustomerId, 'UpdateBalances', eightyPercent)}/BalanceThresholdReached/${sub.gpsi}-1/80`),
      });
      expect(reached.value).toMatchObject({
        gpsi: sub.gpsi,
        wholesalePlanId: 'WP-DATA',
        cycleNo: 1,
        subBalanceInstId: `${sub.gpsi}-1`,
        bucketRefId: '1000003',
        subBalanceType: 'On-Net Data',
        unitType: 'MB',
        thresholdPercent: 80,
        balance: { remainingBalance: 2048, allocatedBalance: 10240, rollOverBalance: 0, totalBalance: 10240, purchasedBalance: 0 },
      });
      await update('Add', 1000);
      const eightyAgain = await update('Subtract', 1000); // below the 80 % mark again: already reported this cycle
      const empty = await update('Subtract', 2048);
      expect((await eventFor('BalanceThresholdReached', empty)).value).toMatchObject({ thresholdPercent: 100, balance: { remainingBalance: 0 } });
      // One partition per gpsi: the later command's event arrived, so the one before it published none.
      await eventFor('BalancesUpdated', eightyAgain);
      expect(thresholdsOf(eightyAgain)).toEqual([]);
      expect(thresholdsOf(eightyPercent)).toHaveLength(1);
      expect(thresholdsOf(empty)).toHaveLength(1);
    });

    it('CancelBuckets removes the add-on and publishes BucketsCancelled with the amounts it had', async () => {
      const sub = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-DATA', bucketRefIds: ['2000002'] });
      const correlationId = randomUUID();
      const reply = await client.send('CancelBuckets', { gpsi: sub.gpsi, bucketRefId: ['2000002'] }, sub.wholesaleCustomerId, correlationId);
      expect(reply.recordName).toBe(balanceRecord('CancelBucketsReply'));
      expect(reply.value.status).toBe('Success');
      expect(subBalances(reply).map((b) => b.bucketRefId)).toEqual(['1000003']);
      const event = await eventFor('BucketsCancelled', correlationId);
      expect(event.value).toMatchObject({ bucketRefIds: ['2000002'] });
      expect(event.value.changes).toEqual([
        {
          change: 'Removed',
          subBalanceInstId: `${sub.gpsi}-2`,
          bucketRefId: '2000002',
          subBalanceType: 'On-Net Data',
          unitType: 'MB',
          quantity: null,
          before: { remainingBalance: 5120, allocatedBalance: 5120, rollOverBalance: 0, totalBalance: 5120, purchasedBalance: 0 },
          after: null,
          validFor: null,
          purchasedValidUntil: null,
        },
      ]);
    });

    it('UpdateBalances applies Add and Subtract, publishes BalancesUpdated, and the ledger (QueryBalanceHistory) matches the events', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const first = randomUUID();
      const second = randomUUID();
      const reply = await client.send(
        'UpdateBalances',
        { gpsi: sub.gpsi, balances: [action(sub, 4, 'Subtract', 100.25), action(sub, 1, 'Add', 30, 'On-Net Voice', 'Min')] },
        sub.wholesaleCustomerId,
        first,
      );
      expect(reply.recordName).toBe(balanceRecord('UpdateBalancesReply'));
      expect(reply.value.status).toBe('Success');
      // The Add is purchased credit, shown apart from the allocation (total = allocated + rollover is the grant).
      expect(subBalances(reply).map((b) => [b.remainingBalance, b.purchasedBalance, b.totalBalance])).toEqual([
        [530, 30, 500],
        [1000, 0, 1000],
        [100, 0, 100],
        [5019.75, 0, 5120],
      ]);
      await client.send('UpdateBalances', { gpsi: sub.gpsi, balances: [action(sub, 4, 'Subtract', 19.75), action(sub, 4, 'Add', 10)] }, sub.wholesaleCustomerId, second);
      const events = [await eventFor('BalancesUpdated', first), await eventFor('BalancesUpdated', second)];
      expect(events[0].value.changes).toEqual([
        {
          change: 'Subtract',
          subBalanceInstId: `${sub.gpsi}-4`,
          bucketRefId: '1000001',
          subBalanceType: 'On-Net Data',
          unitType: 'MB',
          quantity: 100.25,
          before: { remainingBalance: 5120, allocatedBalance: 5120, rollOverBalance: 0, totalBalance: 5120, purchasedBalance: 0 },
          after: { remainingBalance: 5019.75, allocatedBalance: 5120, rollOverBalance: 0, totalBalance: 5120, purchasedBalance: 0 },
          validFor: null,
          purchasedValidUntil: null,
        },
        {
          change: 'Add',
          subBalanceInstId: `${sub.gpsi}-1`,
          bucketRefId: '1000001',
          subBalanceType: 'On-Net Voice',
          unitType: 'Min',
          quantity: 30,
          before: { remainingBalance: 500, allocatedBalance: 500, rollOverBalance: 0, totalBalance: 500, purchasedBalance: 0 },
          after: { remainingBalance: 530, allocatedBalance: 500, rollOverBalance: 0, totalBalance: 500, purchasedBalance: 30 },
          validFor: null,
          purchasedValidUntil: null,
        }, // Voice credit does not expire
      ]);

      // Bought data lasts 90 days (catalog purchasedCredit) from the command.
      expect(events[1].value.changes[1]).toMatchObject({
        change: 'Add',
        after: { purchasedBalance: 10 },
        purchasedValidUntil: new Date(Date.parse(events[1].value.occurredAt) + 90 * 86_400_000).toISOString(),
      });
      const history = await client.send('QueryBalanceHistory', { gpsi: sub.gpsi, limit: 4 }, sub.wholesaleCustomerId);
      expect(history.recordName).toBe(balanceRecord('QueryBalanceHistoryReply'));
      expect(history.value).toMatchObject({ status: 'Success', gpsi: sub.gpsi });
      const fromEvents = [...events]
        .reverse()
        .flatMap((e) => [...e.value.changes].reverse().map((c: object) => ({ ...c, at: e.value.occurredAt, correlationId: e.value.correlationId, operation: 'UpdateBalances' })));
      expect(history.value.entries).toEqual(fromEvents);
    });

    it('a redelivered command (same correlation id) is answered the same and applied once', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const correlationId = randomUUID();
      const command = { gpsi: sub.gpsi, balances: [action(sub, 4, 'Subtract', 1)] };
      const first = await client.send('UpdateBalances', command, sub.wholesaleCustomerId, correlationId);
      const again = await client.send('UpdateBalances', command, sub.wholesaleCustomerId, correlationId);
      expect(again.value).toEqual(first.value);
      expect(subBalances(await query(sub))[3].remainingBalance).toBe(5119);
      const reused = await client.send('UpdateBalances', { ...command, balances: [action(sub, 4, 'Subtract', 7)] }, sub.wholesaleCustomerId, correlationId);
      expect(expectError(reused, 'CONFLICT').message).toContain(correlationId);
      expect(subBalances(await query(sub))[3].remainingBalance).toBe(5119);
    });
  });

  describe('errors', () => {
    it('BAD_REQUEST: AddBuckets lists each id that is not an add-on of the catalog', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const error = expectError(await client.send('AddBuckets', { gpsi: sub.gpsi, bucketRefId: ['2000001', 'nope', '1000002'] }, sub.wholesaleCustomerId), 'BAD_REQUEST');
      expect(error.problems).toEqual([
        { path: 'bucketRefId[1]', reason: 'names no bucket in the catalog (nope)' },
        { path: 'bucketRefId[2]', reason: 'names a PRIMARY bucket (1000002), not an ADDON one' },
      ]);
    });

    it('BAD_REQUEST: SwapPrimaryBucket to an add-on; a bad gpsi with a too long customer header, all at once', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      expect(expectError(await client.send('SwapPrimaryBucket', { gpsi: sub.gpsi, bucketRefId: '2000002' }, sub.wholesaleCustomerId), 'BAD_REQUEST').problems).toEqual([
        { path: 'bucketRefId', reason: 'names an ADDON bucket (2000002), not a PRIMARY one' },
      ]);
      const error = expectError(await client.send('QueryBalances', { gpsi: '12x' }, '1234567890123'), 'BAD_REQUEST');
      expect(error.problems.map((p) => p.path).sort()).toEqual(['gpsi', 'gpsi', `headers.${HEADER.wholesaleCustomerId}`]);
    });

    it('BAD_REQUEST: a balance command without a wholesale customer', async () => {
      const error = expectError(await client.send('QueryBalances', { gpsi: randomGpsi() }, undefined), 'BAD_REQUEST');
      expect(error.problems).toEqual([{ path: 'headers.wholesaleCustomerId', reason: 'is required for balance operations' }]);
    });

    it('UpdateBalances is all or nothing: every problem listed (unknown instance, type, unit, quantity, below zero) and nothing changes', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const before = await query(sub);
      const reply = await client.send(
        'UpdateBalances',
        {
          gpsi: sub.gpsi,
          balances: [
            action(sub, 4, 'Add', 10),
            { ...action(sub, 99, 'Add', 1), subBalanceInstId: 'unknown-1' },
            action(sub, 1, 'Add', 1, 'On-Net Data', 'MB'),
            action(sub, 2, 'Subtract', 1, 'On-Net SMS', 'Min'),
            action(sub, 3, 'Add', Number.NaN, 'On-Net MMS', 'MMS'),
            action(sub, 3, 'Add', -5, 'On-Net MMS', 'MMS'),
            action(sub, 4, 'Subtract', 5130.001),
            { ...action(sub, 4, 'Multiply', 1), balanceType: 'Bonus' },
          ],
        },
        sub.wholesaleCustomerId,
      );
      const error = expectError(reply, 'BAD_REQUEST');
      expect(error.problems).toEqual([
        { path: 'balances[1].subBalanceInstId', reason: 'names no sub-balance of this subscription' },
        { path: 'balances[2].subBalanceType', reason: 'must be On-Net Voice for this sub-balance' },
        { path: 'balances[2].unitType', reason: 'must be Min for this sub-balance' },
        { path: 'balances[3].unitType', reason: 'must be SMS for this sub-balance' },
        { path: 'balances[4].quantity', reason: 'must be a finite number' },
        { path: 'balances[5].quantity', reason: 'must be greater than zero' },
        { path: 'balances[6].quantity', reason: 'would take the remaining balance below zero (remaining 5130)' },
        { path: 'balances[7].balanceType', reason: 'must be one of Main' },
        { path: 'balances[7].action', reason: 'must be one of Add, Subtract' },
      ]);
      expect((await query(sub)).value).toEqual(before.value);
    });

    it('NOT_FOUND: no subscription, or another customer’s; a bucket the subscription does not have', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      expectError(await client.send('QueryBalances', { gpsi: randomGpsi() }, sub.wholesaleCustomerId), 'NOT_FOUND');
      expectError(await client.send('UpdateBalances', { gpsi: sub.gpsi, balances: [action(sub, 4, 'Add', 1)] }, randomCustomer()), 'NOT_FOUND');
      expectError(await client.send('QueryBalanceHistory', { gpsi: sub.gpsi }, randomCustomer()), 'NOT_FOUND');
      const error = expectError(await client.send('CancelBuckets', { gpsi: sub.gpsi, bucketRefId: ['2000002'] }, sub.wholesaleCustomerId), 'NOT_FOUND');
      expect(error.problems).toEqual([{ path: 'bucketRefId[0]', reason: 'is not a bucket of this subscription' }]);
    });

    it('CONFLICT: a subscription that is not active (naming its state), the current primary again, cancelling the primary', async () => {
      const pending = await createPendingSubscription(balance.subscriptions);
      const notActive = expectError(await client.send('AddBuckets', { gpsi: pending.gpsi, bucketRefId: ['2000001'] }, pending.wholesaleCustomerId), 'CONFLICT');
      expect(notActive.message).toContain('PENDING');
      await balance.subscriptions.cancel(pending.gpsi, new Date(), 'cancelled port', 'cause');
      expect(expectError(await query(pending), 'CONFLICT').message).toContain('CANCELLED');

      const sub = await createActiveSubscription(balance.subscriptions);
      expect(expectError(await client.send('SwapPrimaryBucket', { gpsi: sub.gpsi, bucketRefId: '1000001' }, sub.wholesaleCustomerId), 'CONFLICT').problems).toEqual([
        { path: 'bucketRefId', reason: 'is already the primary bucket of this subscription' },
      ]);
      expect(expectError(await client.send('CancelBuckets', { gpsi: sub.gpsi, bucketRefId: ['1000001'] }, sub.wholesaleCustomerId), 'CONFLICT').problems).toEqual([
        { path: 'bucketRefId[0]', reason: 'is the primary bucket, which cannot be cancelled (swap it instead)' },
      ]);
    });
  });

  describe('concurrency', () => {
    it('1,000 concurrent Add 1 on one sub-balance from four producers end exactly 1,000 higher', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const producers = await Promise.all(Array.from({ length: 4 }, () => TestRequester.start(fx.config, [fx.config.topics.balanceReplies])));
      const started = Date.now();
      try {
        const replies = await Promise.all(
          Array.from({ length: 1000 }, (_, i) =>
            producers[i % producers.length].send(
              'balanceCommands',
              balanceRecord('UpdateBalances'),
              { gpsi: sub.gpsi, balances: [action(sub, 4, 'Add', 1)] },
              {
                headers: { [HEADER.wholesaleCustomerId]: sub.wholesaleCustomerId },
              },
            ),
          ),
        );
        expect(replies.every((r) => r.value.status === 'Success')).toBe(true);
      } finally {
        await Promise.all(producers.map((p) => p.stop()));
      }
      console.log(`1,000 UpdateBalances over Kafka on one sub-balance (Redis ${topology.name}): ${Date.now() - started} ms`);
      expect(subBalances(await query(sub))[3].remainingBalance).toBe(5120 + 1000);
    });
  });
});
