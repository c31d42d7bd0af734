import type { Logger } from 'pino';
import { billingEvent } from '../domain/balance/billing-events';
import { nextCycleStart } from '../domain/balance/bill-cycle';
import type { BillingClock } from '../domain/balance/clock';
import type { BalanceOutcome } from '../domain/balance/outcome';
import type { OutgoingMessage } from '../contract/messages';
import type { RenewalState, RenewalStore } from '../handlers/balance/ports';
import { pollLoop } from './poll-loop';

/**
 * The bill-cycle renewal and validity-expiry scheduler, run inside every worker instance. Subscriptions
 * wait in a due-set (score = real time of their next renewal, or of a validity end before it). Each tick
 * claims the due ones with a lease (so two instances do not work on one at once) and takes what has come
 * in time order: each cycle that has started — the renewal script applies only while the subscription
 * still expects that cycle, so a cycle is never renewed twice — and each validity end — the expiry script
 * ends only what is still there, so nothing expires twice. It publishes the BalancesRenewed and
 * BalancesExpired events from the subscription's outbox and reschedules it. A crash anywhere leaves the
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
  /** One pass over the due subscriptions; returns how many cycles were renewed and validity ends expired. */
  tick(): Promise<number>;
}

export const RENEWAL_OPERATION = 'BillCycleRenewal';
export const EXPIRY_OPERATION = 'ValidityExpiry';

/** The event of an outbox entry: BalancesExpired for an expiry (id from the validity end), else BalancesRenewed (id from the cycle). */
export const renewalEvent = (outcome: BalanceOutcome): OutgoingMessage =>
  outcome.expiredAt
    ? billingEvent('BalancesExpired', outcome, `${outcome.subscription.subscriptionId}/${outcome.expiredAt}`)
    : billingEvent('BalancesRenewed', outcome, `${outcome.subscription.subscriptionId}/${outcome.subscription.cycleStart}`);

export function createRenewalScheduler(deps: RenewalSchedulerDeps): RenewalScheduler {
  const { store, clock, settings, log } = deps;
  const realNow = deps.realNow ?? Date.now;

  async function flushOutbox(gpsi: string): Promise<void> {
    for (const { token, outcome } of await store.pending(gpsi)) {
      await deps.publish([renewalEvent(outcome)]);
      await store.acknowledge(gpsi, token);
    }
  }

  /** Renews the cycle or expires the validity end that comes first (an end at a cycle start first); true if it changed anything. */
  async function step(gpsi: string, state: RenewalState & { nextRenewalAt: string }, expiryFirst: boolean): Promise<boolean> {
    const at = new Date(realNow()).toISOString();
    if (expiryFirst) {
      return (await store.expire(gpsi, { at, expiredAt: state.nextExpiryAt!, correlationId: `expiry-${gpsi}-${state.nextExpiryAt}` })) === 'expired';
    }
    const due = new Date(state.nextRenewalAt);
    const result = await store.renew(gpsi, {
      at,
      cycleStart: state.nextRenewalAt,
      nextRenewalAt: nextCycleStart(due, state.billCycleStartDay, state.billCycleTimeZone).toISOString(),
      correlationId: `renewal-${gpsi}-${state.nextRenewalAt}`,
    });
    return result === 'renewed';
  }

  async function renewSubscription(gpsi: string): Promise<number> {
    await flushOutbox(gpsi);
    let renewed = 0;
    for (let steps = 0; steps < settings.maxCatchUpCycles; steps++) {
      const state = await store.state(gpsi);
      if (!state || state.status !== 'ACTIVE' || !state.nextRenewalAt) {
        await store.unschedule(gpsi);
        return renewed;
      }
      const renewalAt = Date.parse(state.nextRenewalAt);
      const expiryAt = state.nextExpiryAt ? Date.parse(state.nextExpiryAt) : Infinity;
      const next = Math.min(renewalAt, expiryAt);
      if (next > clock.now().getTime()) {
        await store.schedule(gpsi, clock.toRealMs(new Date(next)));
        return renewed;
      }
      if (await step(gpsi, { ...state, nextRenewalAt: state.nextRenewalAt }, expiryAt <= renewalAt)) renewed++;
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

  return { ...pollLoop(tick, settings.pollIntervalMs, log, 'balance renewal tick failed'), tick };
}
