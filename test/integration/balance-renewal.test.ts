import { loadCatalogFile } from '../../src/adapters/catalog/catalog-file';
import { createRedisClient } from '../../src/adapters/redis/client';
import { createBalanceComponents, type BalanceComponents } from '../../src/app/balance';
import { cycleStartAtOrBefore, nextCycleStart } from '../../src/domain/balance/bill-cycle';
import type { BillingClock } from '../../src/domain/balance/clock';
import { checkUpdateActions } from '../../src/domain/balance/validation';
import { BalanceClient, balanceRecord } from '../support/balance-client';
import { startTestService, type Reply } from '../support/harness';
import { createActiveSubscription, type TestSubscription } from '../support/subscriptions';
import { useService } from '../support/service-fixture';

/** One billing day lasts a third of a real second: a bill cycle (a month) passes in about 10 s. */
const TIME_SCALE = 259_200;
const DAY_MS = 86_400_000;

/** The start day whose next cycle begins soonest, but at least `minDays` billing days from now. */
function soonestStartDay(clock: BillingClock, minDays: number): number {
  const now = clock.now().getTime();
  return Array.from({ length: 28 }, (_, i) => ({ day: i + 1, next: nextCycleStart(new Date(now), i + 1).getTime() }))
    .filter((c) => c.next - now >= minDays * DAY_MS)
    .sort((a, b) => a.next - b.next)[0].day;
}

type Amounts = { allocatedBalance: number; rollOverBalance: number; remainingBalance: number; totalBalance: number };
type Change = { change: string; subBalanceInstId: string; subBalanceType: string; bucketRefId: string; before: Amounts | null; after: Amounts | null };

/**
 * Bill-cycle renewal by the scheduler inside the workers, on a sped-up billing clock, with two worker
 * instances sharing one Redis: every cycle of every subscription is renewed exactly once.
 */
describe('balance renewal at the bill cycle (two worker instances, sped-up clock)', () => {
  let client: BalanceClient;
  let balance: BalanceComponents;
  let subs: TestSubscription[];

  const renewals = (sub: TestSubscription): Reply[] => client.events.filter((e) => e.recordName === balanceRecord('BalancesRenewed') && e.value.gpsi === sub.gpsi);

  const awaitCycle = async (sub: TestSubscription, cycleNo: number): Promise<Reply> =>
    client.event((e) => e.recordName === balanceRecord('BalancesRenewed') && e.value.gpsi === sub.gpsi && e.value.cycleNo === cycleNo, 40_000);

  const summary = (changes: Change[]) => changes.map((c) => [c.change, c.bucketRefId, c.subBalanceType, c.after && [c.after.allocatedBalance, c.after.rollOverBalance, c.after.remainingBalance]]);

  const fx = useService({
    env: () => ({ BALANCE_TIME_SCALE: String(TIME_SCALE), BALANCE_CLOCK_ORIGIN: new Date().toISOString(), BALANCE_RENEWAL_POLL_MS: '100' }),
    prepare: async (config) => {
      // Set up with no scheduler running yet, so no renewal can race the setup.
      const redis = createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster });
      balance = createBalanceComponents({ config, catalog: loadCatalogFile(config.catalogFile), redis });
      const billCycleStartDay = soonestStartDay(balance.clock, 2);
      // Activated on the first day of their cycle (in billing time): full cycles, whose unused part rolls over.
      const at = new Date(balance.clock.toRealMs(cycleStartAtOrBefore(balance.clock.now(), billCycleStartDay)));
      subs = [
        await createActiveSubscription(balance.subscriptions, { billCycleStartDay, bucketRefIds: ['2000001', '2000002'], at }),
        await createActiveSubscription(balance.subscriptions, { billCycleStartDay, wholesalePlanId: 'WP-DATA', at }),
        await createActiveSubscription(balance.subscriptions, { billCycleStartDay, wholesalePlanId: 'WP-UNL', at }),
      ];
      const [a] = subs;
      await balance.balances.updateBalances(
        { gpsi: a.gpsi, wholesaleCustomerId: a.wholesaleCustomerId, commandId: 'setup', correlationId: 'setup', operation: 'UpdateBalances', at: new Date().toISOString() },
        checkUpdateActions([
          { subBalanceInstId: `${a.gpsi}-1`, subBalanceType: 'On-Net Voice', action: 'Subtract', quantity: 400, unitType: 'Min' },
          { subBalanceInstId: `${a.gpsi}-4`, subBalanceType: 'On-Net Data', action: 'Subtract', quantity: 1000, unitType: 'MB' },
        ]),
      );
      await redis.quit();
    },
  });

  beforeAll(async () => {
    fx.track(await startTestService(fx.config)); // the file's second node
    client = fx.track(await BalanceClient.start(fx.config));
    balance = createBalanceComponents({ config: fx.config, catalog: fx.service.catalog, redis: fx.service.redis });
  });

  it('resets allowances, rolls the unused part over up to the cap, expires a one-cycle add-on at its end, and publishes BalancesRenewed and BalancesExpired', async () => {
    const [a] = subs;
    const second = await awaitCycle(a, 2);
    // The data pass lasts one cycle from its activation (on the cycle's first day, to the billing clock's
    // resolution): it ends as the second cycle starts, by its own validity, once.
    const passEnd = await client.event((e) => e.recordName === balanceRecord('BalancesExpired') && e.value.gpsi === a.gpsi, 40_000);
    expect(passEnd.value).toMatchObject({ wholesaleCustomerId: a.wholesaleCustomerId });
    const endsAfterCycleStart = Date.parse(passEnd.value.expiredAt) - Date.parse(second.value.cycleStart);
    expect(endsAfterCycleStart).toBeGreaterThanOrEqual(0);
    expect(endsAfterCycleStart).toBeLessThan(TIME_SCALE); // one real millisecond of billing time at most
    expect(summary(passEnd.value.changes)).toEqual([['Expired', '2000001', 'On-Net Data', null]]);
    expect(passEnd.value.changes[0].validFor.endDateTime).toBe(passEnd.value.expiredAt);
    expect(second.key).toBe(a.gpsi);
    expect(second.value).toMatchObject({ gpsi: a.gpsi, wholesaleCustomerId: a.wholesaleCustomerId, cycleNo: 2 });
    expect(second.value.cycleStart.slice(8, 10)).toBe(String(a.billCycleStartDay).padStart(2, '0'));
    expect(summary(second.value.changes)).toEqual([
      ['Renewed', '1000001', 'On-Net Voice', [500, 100, 600]], // 100 left, cap 250: all rolls over
      ['Renewed', '1000001', 'On-Net SMS', [1000, 500, 1500]], // 1000 left, cap 500
      ['Renewed', '1000001', 'On-Net MMS', [100, 50, 150]],
      ['Renewed', '1000001', 'On-Net Data', [5120, 2560, 7680]], // 4120 left, cap 2560
      ['Renewed', '2000002', 'On-Net Data', [5120, 2560, 7680]],
    ]);
    expect(second.value.changes[0].before).toEqual({ allocatedBalance: 500, rollOverBalance: 0, remainingBalance: 100, totalBalance: 500, purchasedBalance: 0 });

    const third = await awaitCycle(a, 3);
    expect(summary(third.value.changes)).toEqual([
      ['Renewed', '1000001', 'On-Net Voice', [500, 250, 750]], // rollover stays capped cycle after cycle
      ['Renewed', '1000001', 'On-Net SMS', [1000, 500, 1500]],
      ['Renewed', '1000001', 'On-Net MMS', [100, 50, 150]],
      ['Renewed', '1000001', 'On-Net Data', [5120, 2560, 7680]],
      ['Renewed', '2000002', 'On-Net Data', [5120, 2560, 7680]],
    ]);
    expect(new Date(third.value.cycleStart).getTime()).toBe(new Date(second.value.nextRenewalAt).getTime());
  });

  it('renews every cycle of every subscription and expires each validity end exactly once although two workers schedule them', async () => {
    for (const sub of subs) await awaitCycle(sub, 3);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // room for a duplicate to show up
    const expiries = client.events.filter((e) => e.recordName === balanceRecord('BalancesExpired'));
    expect(expiries.map((e) => e.value.gpsi)).toEqual([subs[0].gpsi]);
    for (const sub of subs) {
      const events = renewals(sub);
      const cycles = events.map((e) => e.value.cycleNo as number);
      expect(new Set(cycles).size).toBe(cycles.length);
      expect(new Set(events.map((e) => e.headers.ce_id)).size).toBe(events.length);
      expect(cycles.slice(0, 2)).toEqual([2, 3]);
    }
  });

  it('the ledger holds exactly the renewals the events report, and the balances agree', async () => {
    const [a] = subs;
    const reply = await client.send('QueryBalanceHistory', { gpsi: a.gpsi, limit: 500 }, a.wholesaleCustomerId);
    const renewalEntries = (reply.value.entries as { operation: string; correlationId: string }[]).filter((e) => e.operation === 'BillCycleRenewal');
    const causes = [...new Set(renewalEntries.map((e) => e.correlationId))]; // one per renewed cycle, newest first
    expect(causes.length).toBeGreaterThanOrEqual(2);
    const events = await Promise.all(causes.map((id) => client.event((e) => e.recordName === balanceRecord('BalancesRenewed') && e.value.correlationId === id)));
    const fromEvents = events.flatMap((e) =>
      [...e.value.changes].reverse().map((c: Change) => ({ ...c, at: e.value.occurredAt, correlationId: e.value.correlationId, operation: 'BillCycleRenewal' })),
    );
    expect(renewalEntries).toEqual(fromEvents);

    // From the third cycle on nothing changes any more, so a renewal running meanwhile cannot disturb this.
    const steady = (events[0].value.changes as Change[]).filter((c) => c.after);
    const { balances } = await balance.balances.queryBalances(a.gpsi, [a.wholesaleCustomerId]);
    expect(balances.map((b) => [b.subBalanceInstId, b.allocated / 1000, b.rollover / 1000, b.remaining / 1000])).toEqual(
      steady.map((c) => [c.subBalanceInstId, c.after!.allocatedBalance, c.after!.rollOverBalance, c.after!.remainingBalance]),
    );
  });
});
