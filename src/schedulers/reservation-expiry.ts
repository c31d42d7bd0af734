import type { Logger } from 'pino';
import type { OutgoingMessage } from '../contract/messages';
import type { BalanceOutcome } from '../domain/balance/outcome';
import { reservationEvent } from '../domain/balance-operations/reservation-events';
import type { ExpiredReservation, ReservationExpiryStore } from '../handlers/balance-operations/ports';
import { pollLoop, type PollLoop } from './poll-loop';

/**
 * Releases reservations nobody committed or released when their time to live ends, once across worker
 * instances. Subscriptions wait in a due-set (score = their first reservation's end); each tick
 * claims the due ones with a lease (another instance leaves them alone meanwhile), runs the expiry script —
 * which releases only what is still held and has ended, so a second run finds nothing — publishes the
 * ReservationExpired events from the subscription's outbox and puts the subscription back at its next end.
 * A crash anywhere leaves the entry due again when its lease ends, and the outbox keeps the unpublished
 * events, re-sent under the same id.
 * Time is the store's (Redis's TIME), the clock each reservation's end was stamped with: a worker whose own
 * clock is ahead would otherwise release reservations before their end, and one behind, after it.
 */
export interface ReservationExpirySettings {
  pollIntervalMs: number;
  batchSize: number;
  leaseMs: number;
}

export interface ReservationExpiryDeps {
  store: ReservationExpiryStore;
  publish(messages: OutgoingMessage[]): Promise<void>;
  log: Logger;
  settings: ReservationExpirySettings;
}

export interface ReservationExpiry extends PollLoop {
  /** One pass over the due subscriptions; returns how many reservations were released. */
  tick(): Promise<number>;
}

/** The event of an expiry; its id names the subscription and the reservation, so a re-send has the same. */
export function expiryEvent(expiry: ExpiredReservation): OutgoingMessage {
  const s = expiry.subscription;
  const outcome: BalanceOutcome = {
    at: expiry.at,
    correlationId: `reservation-expiry-${expiry.reservation.reservationId}`,
    subscription: { ...s, billCycleFrequency: '', billCycleStartDay: 0, billCycleTimeZone: '', status: 'ACTIVE' },
    changes: [],
    balances: [],
    replayed: false,
  };
  return reservationEvent('ReservationExpired', outcome, expiry.reservation, `${s.subscriptionId}/${expiry.reservation.reservationId}/${expiry.reservation.expiresAt}`);
}

export function createReservationExpiry(deps: ReservationExpiryDeps): ReservationExpiry {
  const { store, settings, log } = deps;

  async function flushOutbox(gpsi: string): Promise<void> {
    for (const { token, expiry } of await store.pending(gpsi)) {
      await deps.publish([expiryEvent(expiry)]);
      await store.acknowledge(gpsi, token);
    }
  }

  async function expireSubscription(gpsi: string, now: number, claimedUntil: number): Promise<number> {
    await flushOutbox(gpsi);
    const { expired, nextAtMs } = await store.expire(gpsi, now);
    await flushOutbox(gpsi);
    await store.reschedule(gpsi, claimedUntil, nextAtMs);
    return expired;
  }

  async function tick(): Promise<number> {
    const now = await store.now();
    const claimedUntil = now + settings.leaseMs;
    const claimed = await store.claimDue(now, claimedUntil, settings.batchSize);
    const results = await Promise.all(
      claimed.map((gpsi) =>
        expireSubscription(gpsi, now, claimedUntil).catch((error: unknown) => {
          log.error({ err: error, gpsi }, 'reservation expiry failed; retried after the lease');
          return 0;
        }),
      ),
    );
    const released = results.reduce((a, b) => a + b, 0);
    if (released > 0) log.info({ released, claimed: claimed.length }, 'reservations expired');
    return released;
  }

  return { ...pollLoop(tick, settings.pollIntervalMs, log, 'reservation expiry tick failed'), tick };
}
