import type { Logger } from 'pino';
import { billingEvent } from '../domain/balance/billing-events';
import { nextCycleStart } from '../domain/balance/bill-cycle';
import type { BillingClock } from '../domain/balance/clock';
import type { BalanceOutcome } from '../domain/balance/outcome';
import type { OutgoingMessage } from '../contract/messages';
import type { RenewalStore } from '../handlers/balance/ports';

/**
 * The bill-cycle renewal scheduler, run inside every worker instance. Subscriptions wait in a due-set
 * (score = real time of their next renewal). Each tick claims the due ones with a lease (so two instances
 * do not work on one at once), renews each cycle that has started — the renewal script applies only while
 * the subscription still expects that cycle, so a cycle is never renewed twice — then publishes the
 * BalancesRenewed events from the subscription's outbox and reschedules it. A crash anywhere leaves the
 * entry due again when its lease ends; the outbox keeps the unpublished events, re-sent under the same id.
 */
export interface RenewalSettings {
  pollIntervalMs: number;
  batchSize: number;
  /** How long a claimed subscription is left to its claimer before another instance may take it. */
  leaseMs: number;
  /** Cycles renewed for one subscription in one go after a long outage; the rest follow on the next tick. */
  maxCatchUpCycles: number;
}

export interface RenewalSchedulerDeps {
  store: RenewalStore;
  clock: BillingClock;
  publish(messages: OutgoingMessage[]): Promise<void>;
  log: Logger;
  settings: RenewalSettings;
  realNow?: () => number;
}

export interface RenewalScheduler {
  start(): void;
  /** Stops polling and waits for the tick in flight. */
  stop(): Promise<void>;
  /** One pass over the due subscriptions; returns how many cycles were renewed. */
  tick(): Promise<number>;
}

export const RENEWAL_OPERATION = 'BillCycleRenewal';

export const renewalEvent = (outcome: BalanceOutcome): OutgoingMessage =>
  billingEvent('BalancesRenewed', outcome, `${outcome.subscription.subscriptionId}/${outcome.subscription.cycleStart}`);

export function createRenewalScheduler(deps: RenewalSchedulerDeps): RenewalScheduler {
  const { store, clock, settings, log } = deps;
  const realNow = deps.realNow ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;

  async function flushOutbox(gpsi: string): Promise<void> {
    for (const { token, outcome } of await store.pending(gpsi)) {
      await deps.publish([renewalEvent(outcome)]);
      await store.acknowledge(gpsi, token);
    }
  }

  async function renewSubscription(gpsi: string): Promise<number> {
    await flushOutbox(gpsi);
    let renewed = 0;
    for (let cycles = 0; cycles < settings.maxCatchUpCycles; cycles++) {
      const state = await store.state(gpsi);
      if (!state || state.status !== 'ACTIVE' || !state.nextRenewalAt) {
        await store.unschedule(gpsi);
        return renewed;
      }
      const due = new Date(state.nextRenewalAt);
      if (due.getTime() > clock.now().getTime()) {
        await store.schedule(gpsi, clock.toRealMs(due));
        return renewed;
      }
      const result = await store.renew(gpsi, {
        at: new Date(realNow()).toISOString(),
        cycleStart: state.nextRenewalAt,
        nextRenewalAt: nextCycleStart(due, state.billCycleStartDay, state.billCycleTimeZone).toISOString(),
        correlationId: `renewal-${gpsi}-${state.nextRenewalAt}`,
      });
      if (result === 'renewed') renewed++;
      await flushOutbox(gpsi);
    }
    await store.schedule(gpsi, realNow()); // more cycles to catch up: due again at once
    return renewed;
  }

  async function tick(): Promise<number> {
    const now = realNow();
    const claimed = await store.claimDue(now, now + settings.leaseMs, settings.batchSize);
    const results = await Promise.all(
      claimed.map((gpsi) =>
        renewSubscription(gpsi).catch((error: unknown) => {
          // Left claimed: due again when the lease ends.
          log.error({ err: error, gpsi }, 'balance renewal failed; retried after the lease');
          return 0;
        }),
      ),
    );
    const renewed = results.reduce((a, b) => a + b, 0);
    if (renewed > 0) log.info({ renewed, claimed: claimed.length }, 'balances renewed');
    return renewed;
  }

  function loop(): void {
    if (stopped) return;
    running = tick()
      .catch((error: unknown) => log.error({ err: error }, 'balance renewal tick failed'))
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(loop, settings.pollIntervalMs);
      });
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      loop();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
    tick,
  };
}
