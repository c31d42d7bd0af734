import pino from 'pino';
import { createBillingClock } from '../../../src/domain/balance/clock';
import type { BalanceOutcome } from '../../../src/domain/balance/outcome';
import type { OutgoingMessage } from '../../../src/contract/messages';
import { createRenewalScheduler } from '../../../src/schedulers/balance-renewal';
import { type RenewalStore } from '../../../src/handlers/balance/ports';

const GPSI = '15551234567';

/**
 * An in-memory RenewalStore with the same compare-and-set rule as the renewal script, and validity ends
 * (`ends`, ISO) that the expiry removes as the expiry script does: what is gone is not expired again.
 */
function memoryStore(subscription: { status: string; billCycleStartDay: number; billCycleTimeZone?: string; nextRenewalAt: string }, ends: string[] = []) {
  const due = new Map<string, number>();
  const outbox: string[] = [];
  const renewedCycles: string[] = [];
  const steps: string[] = [];
  const store: RenewalStore = {
    async claimDue(now, leaseUntil, limit) {
      const claimed = [...due]
        .filter(([, at]) => at <= now)
        .slice(0, limit)
        .map(([gpsi]) => gpsi);
      for (const gpsi of claimed) due.set(gpsi, leaseUntil);
      return claimed;
    },
    state: async () => ({ ...subscription, ...(ends.length > 0 ? { nextExpiryAt: [...ends].sort()[0] } : {}) }),
    async renew(_gpsi, cycle) {
      if (subscription.status !== 'ACTIVE') return 'inactive';
      if (subscription.nextRenewalAt !== cycle.cycleStart) return 'not-due';
      subscription.nextRenewalAt = cycle.nextRenewalAt;
      renewedCycles.push(cycle.cycleStart);
      steps.push(`renew ${cycle.cycleStart}`);
      outbox.push(JSON.stringify({ cycleStart: cycle.cycleStart, nextRenewalAt: cycle.nextRenewalAt, correlationId: cycle.correlationId }));
      return 'renewed';
    },
    async expire(_gpsi, expiry) {
      const ended = ends.filter((end) => end <= expiry.expiredAt);
      if (ended.length === 0) return 'nothing';
      ends.splice(0, ends.length, ...ends.filter((end) => end > expiry.expiredAt));
      steps.push(`expire ${expiry.expiredAt}`);
      outbox.push(JSON.stringify({ expiredAt: expiry.expiredAt, correlationId: expiry.correlationId }));
      return 'expired';
    },
    async pending() {
      return outbox.map((token) => {
        const o = JSON.parse(token);
        const outcome: BalanceOutcome = {
          at: 'now',
          correlationId: o.correlationId,
          subscription: {
            gpsi: GPSI,
            subscriptionId: 'sub-1',
            subscriberId: 'S',
            wholesaleCustomerId: 'C',
            wholesalePlanId: 'P',
            billCycleFrequency: 'MONTHLY',
            billCycleStartDay: 1,
            billCycleTimeZone: 'UTC',
            status: 'ACTIVE',
            cycleStart: o.cycleStart,
            nextRenewalAt: o.nextRenewalAt,
          },
          changes: [],
          balances: [],
          replayed: false,
          ...(o.expiredAt ? { expiredAt: o.expiredAt } : {}),
        };
        return { token, outcome };
      });
    },
    acknowledge: async (_gpsi, token) => void outbox.splice(outbox.indexOf(token), 1),
    schedule: async (gpsi, at) => void due.set(gpsi, at),
    unschedule: async (gpsi) => void due.delete(gpsi),
  };
  return { store, due, outbox, renewedCycles, steps, subscription };
}

const settings = { pollIntervalMs: 10, batchSize: 10, leaseMs: 60_000, maxCatchUpCycles: 3 };
const log = pino({ level: 'silent' });

describe('renewal scheduler', () => {
  it('renews at local midnight of the subscription time zone, across the daylight-saving change (New York, March)', async () => {
    const real = Date.UTC(2026, 3, 20);
    const memory = memoryStore({ status: 'ACTIVE', billCycleStartDay: 15, billCycleTimeZone: 'America/New_York', nextRenewalAt: '2026-02-15T05:00:00.000Z' });
    memory.due.set(GPSI, 0);
    const scheduler = createRenewalScheduler({ store: memory.store, clock: createBillingClock(1, 0, () => real), publish: async () => {}, log, settings, realNow: () => real });
    expect(await scheduler.tick()).toBe(3);
    // 00:00 EST is 05:00Z; from March 8 on, 00:00 EDT is 04:00Z.
    expect(memory.renewedCycles).toEqual(['2026-02-15T05:00:00.000Z', '2026-03-15T04:00:00.000Z', '2026-04-15T04:00:00.000Z']);
    expect(memory.subscription.nextRenewalAt).toBe('2026-05-15T04:00:00.000Z');
  });

  it('renews each started cycle once, publishes before acknowledging, and reschedules at the next cycle', async () => {
    let real = Date.UTC(2026, 2, 15, 12);
    const clock = createBillingClock(1, 0, () => real);
    const memory = memoryStore({ status: 'ACTIVE', billCycleStartDay: 15, nextRenewalAt: '2026-03-15T00:00:00.000Z' });
    memory.due.set(GPSI, Date.UTC(2026, 2, 15));
    const published: OutgoingMessage[] = [];
    const scheduler = createRenewalScheduler({
      store: memory.store,
      clock,
      publish: async (m) => {
        expect(memory.outbox).toHaveLength(1); // still there: acknowledged only after the publish
        published.push(...m);
      },
      log,
      settings,
      realNow: () => real,
    });

    expect(await scheduler.tick()).toBe(1);
    expect(memory.renewedCycles).toEqual(['2026-03-15T00:00:00.000Z']);
    expect(memory.outbox).toEqual([]);
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({
      recordName: 'wholesale.balance.v1.BalancesRenewed',
      key: GPSI,
      value: { cycleStart: '2026-03-15T00:00:00.000Z', nextRenewalAt: '2026-04-15T00:00:00.000Z' },
    });
    expect(memory.due.get(GPSI)).toBe(Date.UTC(2026, 3, 15));

    expect(await scheduler.tick()).toBe(0); // not due again before April 15
    real = Date.UTC(2026, 3, 15, 0, 0, 1);
    expect(await scheduler.tick()).toBe(1);
    expect(memory.renewedCycles).toEqual(['2026-03-15T00:00:00.000Z', '2026-04-15T00:00:00.000Z']);
  });

  it('takes renewals and validity ends in time order, waits for the earliest, and publishes BalancesExpired once per end', async () => {
    let real = Date.UTC(2026, 2, 20);
    const clock = createBillingClock(1, 0, () => real);
    // A pass ending before the cycle starts, one ending at its start, one after it.
    const memory = memoryStore({ status: 'ACTIVE', billCycleStartDay: 1, nextRenewalAt: '2026-04-01T00:00:00.000Z' }, [
      '2026-04-01T00:00:00.000Z',
      '2026-03-31T12:00:00.000Z',
      '2026-04-30T12:00:00.000Z',
    ]);
    memory.due.set(GPSI, 0);
    const published: OutgoingMessage[] = [];
    const scheduler = createRenewalScheduler({ store: memory.store, clock, publish: async (m) => void published.push(...m), log, settings, realNow: () => real });
    expect(await scheduler.tick()).toBe(0);
    expect(memory.due.get(GPSI)).toBe(Date.UTC(2026, 2, 31, 12)); // the first end, before the renewal
    real = Date.UTC(2026, 3, 30, 18);
    expect(await scheduler.tick()).toBe(3); // the catch-up takes 3 steps (maxCatchUpCycles) per pass
    expect(await scheduler.tick()).toBe(1);
    expect(memory.steps).toEqual([
      'expire 2026-03-31T12:00:00.000Z',
      'expire 2026-04-01T00:00:00.000Z', // an end at the cycle start goes first
      'renew 2026-04-01T00:00:00.000Z',
      'expire 2026-04-30T12:00:00.000Z',
    ]);
    expect(published.map((m) => [m.recordName, m.value.expiredAt ?? m.value.cycleStart])).toEqual([
      ['wholesale.balance.v1.BalancesExpired', '2026-03-31T12:00:00.000Z'],
      ['wholesale.balance.v1.BalancesExpired', '2026-04-01T00:00:00.000Z'],
      ['wholesale.balance.v1.BalancesRenewed', '2026-04-01T00:00:00.000Z'],
      ['wholesale.balance.v1.BalancesExpired', '2026-04-30T12:00:00.000Z'],
    ]);
    expect(new Set(published.map((m) => m.cloudEvent!.id)).size).toBe(4);
    expect(memory.due.get(GPSI)).toBe(Date.UTC(2026, 4, 1)); // nothing left to expire: the next renewal
  });

  it('an expiry another instance already ran changes nothing and publishes nothing', async () => {
    const real = Date.UTC(2026, 2, 31, 13);
    const memory = memoryStore({ status: 'ACTIVE', billCycleStartDay: 1, nextRenewalAt: '2026-04-01T00:00:00.000Z' }, ['2026-03-31T12:00:00.000Z']);
    expect(await memory.store.expire(GPSI, { at: 'x', expiredAt: '2026-03-31T12:00:00.000Z', correlationId: 'first' })).toBe('expired');
    expect(await memory.store.expire(GPSI, { at: 'x', expiredAt: '2026-03-31T12:00:00.000Z', correlationId: 'second' })).toBe('nothing');
    memory.outbox.splice(0); // published by the first instance
    memory.due.set(GPSI, 0);
    const published: OutgoingMessage[] = [];
    const scheduler = createRenewalScheduler({
      store: memory.store,
      clock: createBillingClock(1, 0, () => real),
      publish: async (m) => void published.push(...m),
      log,
      settings,
      realNow: () => real,
    });
    expect(await scheduler.tick()).toBe(0);
    expect(published).toEqual([]);
    expect(memory.due.get(GPSI)).toBe(Date.UTC(2026, 3, 1));
  });

  it('catches up missed cycles a few at a time and stays due for the rest', async () => {
    const real = Date.UTC(2026, 6, 2);
    const memory = memoryStore({ status: 'ACTIVE', billCycleStartDay: 1, nextRenewalAt: '2026-01-01T00:00:00.000Z' });
    memory.due.set(GPSI, 0);
    const published: OutgoingMessage[] = [];
    const scheduler = createRenewalScheduler({
      store: memory.store,
      clock: createBillingClock(1, 0, () => real),
      publish: async (m) => void published.push(...m),
      log,
      settings,
      realNow: () => real,
    });
    expect(await scheduler.tick()).toBe(3);
    expect(memory.due.get(GPSI)).toBe(real);
    expect(await scheduler.tick()).toBe(3);
    expect(await scheduler.tick()).toBe(1);
    expect(memory.renewedCycles.map((c) => c.slice(0, 7))).toEqual(['2026-01', '2026-02', '2026-03', '2026-04', '2026-05', '2026-06', '2026-07']);
    expect(new Set(published.map((m) => m.cloudEvent!.id)).size).toBe(7);
    expect(memory.due.get(GPSI)).toBe(Date.UTC(2026, 7, 1));
  });

  it('publishes an event left in the outbox by a crash, under the same id, without renewing again', async () => {
    const real = Date.UTC(2026, 2, 20);
    const memory = memoryStore({ status: 'ACTIVE', billCycleStartDay: 15, nextRenewalAt: '2026-03-15T00:00:00.000Z' });
    memory.due.set(GPSI, 0);
    const ids: string[] = [];
    let failing = true;
    const scheduler = createRenewalScheduler({
      store: memory.store,
      clock: createBillingClock(1, 0, () => real),
      publish: async (m) => {
        if (failing) throw new Error('Kafka away');
        ids.push(...m.map((x) => x.cloudEvent!.id));
      },
      log,
      settings: { ...settings, leaseMs: 0 },
      realNow: () => real,
    });
    expect(await scheduler.tick()).toBe(0); // renewed, but the publish failed: counted as a failure
    expect(memory.outbox).toHaveLength(1);
    failing = false;
    await scheduler.tick();
    expect(memory.renewedCycles).toHaveLength(1);
    expect(memory.outbox).toEqual([]);
    expect(ids).toHaveLength(1);
  });

  it('drops a subscription that is no longer active from the due-set', async () => {
    const memory = memoryStore({ status: 'CANCELLED', billCycleStartDay: 1, nextRenewalAt: '2026-01-01T00:00:00.000Z' });
    memory.due.set(GPSI, 0);
    const scheduler = createRenewalScheduler({ store: memory.store, clock: createBillingClock(1, 0), publish: async () => undefined, log, settings });
    await scheduler.tick();
    expect(memory.due.has(GPSI)).toBe(false);
  });

  it('polls after start and stops cleanly', async () => {
    const memory = memoryStore({ status: 'ACTIVE', billCycleStartDay: 1, nextRenewalAt: '2026-01-01T00:00:00.000Z' });
    const scheduler = createRenewalScheduler({ store: memory.store, clock: createBillingClock(1, 0), publish: async () => undefined, log, settings });
    scheduler.start();
    memory.due.set(GPSI, 0);
    await new Promise((r) => setTimeout(r, 100));
    await scheduler.stop();
    expect(memory.renewedCycles.length).toBeGreaterThan(0);
  });
});
